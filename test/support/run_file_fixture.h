// A committed run file read and decoded for a fixture test; a failure at either step fails the
// calling test (and yields an empty run).
#ifndef CUTRACE_TEST_SUPPORT_RUN_FILE_FIXTURE_H
#define CUTRACE_TEST_SUPPORT_RUN_FILE_FIXTURE_H

#include <cutrace/run.h>
#include <cutrace/run_trace.h>

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace cutrace::test {

inline RunTrace decoded_run_file(const std::string &path) {
  Expected<Run> run = read_run_file(path);
  EXPECT_TRUE(run) << path << ": " << run.error;
  if (!run)
    return {};
  Expected<RunTrace> trace = decode_run(*run, path);
  EXPECT_TRUE(trace) << path << ": " << trace.error;
  return trace ? std::move(*trace) : RunTrace{};
}

} // namespace cutrace::test

#endif // CUTRACE_TEST_SUPPORT_RUN_FILE_FIXTURE_H
