// Run files the fuzz_ctrace target found (docs/reliability.md), kept in fuzz/regressions/ctrace:
// a corrupt run file is read and decoded without ending the process, whatever its JSON holds.
#include <cutrace/run.h>
#include <cutrace/run_trace.h>

#include <gtest/gtest.h>

#include <string>
#include "support/tree_paths.h"


namespace cutrace {
namespace {

// Read and decode `name`; the decode may fail with a message, never throw.
void decodesOrSaysWhy(const std::string &name) {
  const std::string path = std::string(CUTRACE_FUZZ_REGRESSIONS) + "/ctrace/" + name;
  Expected<Run> run = read_run_file(path);
  ASSERT_TRUE(run) << path << ": " << run.error;
  Expected<RunTrace> trace = decode_run(*run, path);
  if (!trace)
    EXPECT_FALSE(trace.error.empty());
}

// A run section's key holding a number where a string belongs (and the like) threw
// nlohmann's type_error out of decode_run: such a value now reads as a missing one.
TEST(RunDecodeCorrupt, ValueOfAnotherKindReadsAsMissing) {
  decodesOrSaysWhy("run_json_value_of_another_kind.ctrace");
}

// A device's host-minus-GPU offset near INT64_MIN overflowed int64_t where launches are placed
// on the host axis (undefined behaviour, seen under UBSan): the sums wrap as unsigned now.
TEST(RunDecodeCorrupt, FarClockOffsetDoesNotOverflow) {
  decodesOrSaysWhy("run_clock_offset_overflow.ctrace");
}

// `"pid": 1E54`, a float where an integer belongs, converted out of range (undefined behaviour,
// seen under UBSan by fuzz_ctrace): a float for an integer key reads as missing now.
TEST(RunDecodeCorrupt, FloatForAnIntegerKeyReadsAsMissing) {
  decodesOrSaysWhy("run_json_float_for_an_integer.ctrace");
}

} // namespace
} // namespace cutrace
