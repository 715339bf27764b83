// The folders and tools of this checkout and build that the tests read. Their values are in one
// source CMake writes into the build (tree_paths.cpp, test/CMakeLists.txt), linked into each
// test program: no other test source has a folder of the checkout in its compile command, so a
// second checkout of the same sources reads their objects back from ccache.
#ifndef CUTRACE_TEST_SUPPORT_TREE_PATHS_H
#define CUTRACE_TEST_SUPPORT_TREE_PATHS_H

namespace cutrace_test {
extern const char kTestData[];        // test/data
extern const char kTestInputs[];      // test/inputs
extern const char kFuzzRegressions[]; // fuzz/regressions
extern const char kRuntimeInclude[];  // runtime/include
extern const char kRewriteBin[];      // the trace-rewrite this build made ("" without it)
extern const char kTraceView[];       // the trace-view this build made ("" without it)
} // namespace cutrace_test

#define CUTRACE_TEST_DATA ::cutrace_test::kTestData
#define CUTRACE_TEST_INPUTS ::cutrace_test::kTestInputs
#define CUTRACE_FUZZ_REGRESSIONS ::cutrace_test::kFuzzRegressions
#define CUTRACE_RUNTIME_INCLUDE ::cutrace_test::kRuntimeInclude
#define CUTRACE_REWRITE_BIN ::cutrace_test::kRewriteBin
#define CUTRACE_TRACE_VIEW ::cutrace_test::kTraceView

#endif // CUTRACE_TEST_SUPPORT_TREE_PATHS_H
