// Row capacity per launch (docs/guide.md, "Row capacity"): the map's max_events is the floor, a
// kernel's first launch shares the per-launch budget, later ones hold what earlier rows needed.
#include "capture/outputs.h"
#include "capture/row_sizing.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <thread>

namespace cutrace {
namespace {

constexpr uint64_t kMiB = uint64_t(1) << 20;

KernelMap map_named(const char *kernel, uint32_t max_events, bool sized = true) {
  KernelMap map{kernel, 1, max_events, Clock::clock64, "{}"};
  map.rows_sized_at_launch = sized;
  return map;
}

// The slots a row of `rows` rows gets from `bytes`: what is left after the headers, even.
uint32_t share(uint64_t bytes, uint64_t rows) {
  return uint32_t((bytes / rows - kRowHeaderBytes) / kRecordBytes) & ~1u;
}

TEST(RowSizing, AFirstLaunchSharesTheLaunchBudgetAmongItsRows) {
  RowSizing sizing(64 * kMiB, 1024 * kMiB);
  const KernelMap gemm = map_named("gemm", 1024);
  // 120 persistent CTAs of two rows: 34,944 slots each, where example 48's consumers need ~17,400.
  EXPECT_EQ(sizing.capacity(gemm, 240), share(64 * kMiB, 240));
  EXPECT_EQ(sizing.capacity(gemm, 240), 34944u);
  // The whole launch stays within the budget.
  EXPECT_LE(240 * row_stride_bytes(sizing.capacity(gemm, 240)), 64 * kMiB);
}

TEST(RowSizing, TheMapsMaxEventsIsTheFloor) {
  RowSizing sizing(64 * kMiB, 1024 * kMiB);
  // A million rows: the budget's share is 0 slots; the build's 1024 stay.
  EXPECT_EQ(sizing.capacity(map_named("wide", 1024), 1u << 20), 1024u);
  EXPECT_EQ(sizing.capacity(map_named("wide", 5000), 1u << 20), 5000u);
}

TEST(RowSizing, RowsNotSizedAtLaunchHoldExactlyMaxEvents) {
  RowSizing sizing(64 * kMiB, 1024 * kMiB);
  const KernelMap staged = map_named("staged", 1024, /*sized=*/false);
  EXPECT_EQ(sizing.capacity(staged, 8), 1024u);
  sizing.saw(staged, 100000);
  EXPECT_EQ(sizing.capacity(staged, 8), 1024u);
}

TEST(RowSizing, LaterLaunchesHoldWhatTheFullestRowNeededAndAQuarterMore) {
  RowSizing sizing(1 * kMiB, 1024 * kMiB); // 1 MiB over 240 rows: 538 slots, below the floor
  const KernelMap gemm = map_named("gemm", 1024);
  EXPECT_EQ(sizing.capacity(gemm, 240), 1024u);
  sizing.saw(gemm, 17408);
  EXPECT_EQ(sizing.capacity(gemm, 240), 17408u + 17408u / 4 + 2);
  // A launch with fewer events teaches nothing smaller.
  sizing.saw(gemm, 300);
  EXPECT_EQ(sizing.capacity(gemm, 240), 17408u + 17408u / 4 + 2);
  // Another kernel keeps its own history.
  EXPECT_EQ(sizing.capacity(map_named("other", 1024), 240), 1024u);
}

TEST(RowSizing, OnceALaunchDrainedTheBudgetNoLongerApplies) {
  // A kernel of small rows does not take the budget's memory (and its zeroing) on every launch.
  RowSizing sizing(64 * kMiB, 1024 * kMiB);
  const KernelMap small = map_named("small", 1024);
  EXPECT_EQ(sizing.capacity(small, 8), share(64 * kMiB, 8));
  sizing.saw(small, 40);
  EXPECT_EQ(sizing.capacity(small, 8), 1024u);
  sizing.saw(small, 2000);
  EXPECT_EQ(sizing.capacity(small, 8), 2000u + 500u + 2);
}

TEST(RowSizing, AGraphsLaunchTakesNoShareOfTheBudget) {
  // Its buffer lives as long as the process: the build's rows, or what a drained launch needed.
  RowSizing sizing(64 * kMiB, 1024 * kMiB);
  const KernelMap node = map_named("node", 1024);
  EXPECT_EQ(sizing.capacity(node, 240, /*share_budget=*/false), 1024u);
  sizing.saw(node, 4000);
  EXPECT_EQ(sizing.capacity(node, 240, /*share_budget=*/false), 5002u);
}

TEST(RowSizing, NoLaunchOutgrowsThePoolHoweverFullItsRowsWere) {
  RowSizing sizing(1 * kMiB, 64 * kMiB);
  const KernelMap gemm = map_named("gemm", 1024);
  sizing.saw(gemm, 1u << 29);
  const uint32_t slots = sizing.capacity(gemm, 240);
  EXPECT_EQ(slots, share(64 * kMiB, 240));
  EXPECT_LE(240 * row_stride_bytes(slots), 64 * kMiB);
  // Never past what the device's cursor counts to.
  RowSizing roomy(1 * kMiB, uint64_t(1) << 44);
  roomy.saw(gemm, kMaxRowCapacity);
  EXPECT_EQ(roomy.capacity(gemm, 1), kMaxRowCapacity);
}

// The bytes of a launch of `ctas` CTAs of `per_cta` rows as `plan` lays it out (the header, the
// kept CTAs' rows and, with a stride, the row the others point at).
uint64_t launch_bytes(const RowLayout &plan, uint64_t ctas, uint32_t per_cta) {
  const uint64_t kept = (ctas + plan.cta_stride - 1) / plan.cta_stride;
  return kBufferHeaderBytes + kept * per_cta * row_stride_bytes(plan.capacity) +
         (plan.cta_stride > 1 ? kRowHeaderBytes : 0);
}

TEST(RowSizing, EveryCtaIsRecordedWhileThePoolHoldsItsRows) {
  RowSizing sizing(1 * kMiB, 64 * kMiB);
  const KernelMap gemm = map_named("gemm", 1024);
  // Example 48 at 8192^3: 120 CTAs of two consumer rows, 17,408 slots each.
  sizing.saw(gemm, 17408);
  const RowLayout plan = sizing.plan(gemm, 120, 2);
  EXPECT_EQ(plan.cta_stride, 1u);
  EXPECT_EQ(plan.capacity, 17408u + 17408u / 4 + 2);
  // Before a launch drained nothing is known: every CTA, the budget's share.
  RowSizing fresh(64 * kMiB, 1024 * kMiB);
  EXPECT_EQ(fresh.plan(gemm, 120, 2).cta_stride, 1u);
  EXPECT_EQ(fresh.plan(gemm, 120, 2).capacity, share(64 * kMiB, 240));
}

TEST(RowSizing, WhenThePoolCannotHoldEveryCtaOneCtaInKIsKeptWhole) {
  RowSizing sizing(1 * kMiB, 16 * kMiB);
  const KernelMap gemm = map_named("gemm", 1024);
  sizing.saw(gemm, 17408); // every CTA at 21,762 slots a row: 41.8 MB
  const RowLayout plan = sizing.plan(gemm, 120, 2);
  // The smallest stride whose CTAs fit: 48 CTAs' rows fit 16 MiB, so 1 in 3 (40 CTAs).
  EXPECT_EQ(plan.cta_stride, 3u);
  EXPECT_EQ(plan.capacity, 17408u + 17408u / 4 + 2); // whole: the size the rows need
  EXPECT_LE(launch_bytes(plan, 120, 2), 16 * kMiB);
  const RowLayout two{plan.capacity, 2};
  EXPECT_GT(launch_bytes(two, 120, 2), 16 * kMiB); // and 1 in 2 would not fit
}

TEST(RowSizing, TheRuleFirstKeepsEveryCtaAndEachRowsFirstRecords) {
  RowSizing sizing(1 * kMiB, 16 * kMiB, /*whole_ctas=*/false);
  const KernelMap gemm = map_named("gemm", 1024);
  sizing.saw(gemm, 17408);
  const RowLayout plan = sizing.plan(gemm, 120, 2);
  EXPECT_EQ(plan.cta_stride, 1u);
  EXPECT_EQ(plan.capacity, share(16 * kMiB, 240));
}

TEST(RowSizing, NoStrideWhereTheDeviceCodeReadsNone) {
  RowSizing sizing(1 * kMiB, 16 * kMiB);
  const KernelMap staged = map_named("staged", 1024, /*sized=*/false);
  sizing.saw(staged, 17408);
  EXPECT_EQ(sizing.plan(staged, 120, 2).cta_stride, 1u);
  EXPECT_EQ(sizing.plan(staged, 120, 2).capacity, 1024u);
  // One CTA: nothing to leave out.
  const KernelMap one = map_named("one", 1024);
  sizing.saw(one, 1u << 24);
  EXPECT_EQ(sizing.plan(one, 1, 2).cta_stride, 1u);
}

TEST(RowSizing, WhenNotEvenOneCtasRowsFitTheKeptOneKeepsItsFirstRecords) {
  RowSizing sizing(1 * kMiB, 16 * kMiB);
  const KernelMap huge = map_named("huge", 1024);
  sizing.saw(huge, 1u << 24); // 128 MiB a row
  const RowLayout plan = sizing.plan(huge, 120, 2);
  EXPECT_EQ(plan.cta_stride, 120u);
  EXPECT_LT(plan.capacity, 1u << 24);
  EXPECT_LE(launch_bytes(plan, 120, 2), 16 * kMiB);
}

// A launch queued while the kernel's first is in flight waits for that one to drain, then takes
// what it needed. The wait must end when the drain reports: if it did not, this test would hang
// (the hour is never reached), so it fails rather than passes on a busy machine.
TEST(RowSizing, ALaunchQueuedBehindTheKernelsFirstIsSizedFromItOnceItDrains) {
  RowSizing sizing(64 * kMiB, 1024 * kMiB);
  const KernelMap gemm = map_named("gemm", 1024);
  sizing.queued(gemm);
  std::thread next([&] { sizing.await_first(gemm, std::chrono::hours(1)); });
  sizing.drained(gemm, 60000u);
  next.join();
  EXPECT_EQ(sizing.capacity(gemm, 240), 60000u + 60000u / 4 + 2);
  // Once one drained, no launch of the kernel waits again.
  sizing.queued(gemm);
  EXPECT_FALSE(sizing.await_first(gemm, std::chrono::hours(1)));
}

TEST(RowSizing, AFirstLaunchThatFailedEndsTheWaitWithNothingLearnt) {
  RowSizing sizing(64 * kMiB, 1024 * kMiB);
  const KernelMap gemm = map_named("gemm", 1024);
  sizing.queued(gemm);
  std::thread next([&] { sizing.await_first(gemm, std::chrono::hours(1)); });
  sizing.drained(gemm, std::nullopt);
  next.join();
  EXPECT_EQ(sizing.capacity(gemm, 240), share(64 * kMiB, 240));
  EXPECT_FALSE(sizing.await_first(gemm, std::chrono::hours(1))); // nothing queued now
}

TEST(RowSizing, AWaitThatOutlivesItsBoundGoesOnWithTheBudgetsShare) {
  RowSizing sizing(64 * kMiB, 1024 * kMiB);
  const KernelMap gemm = map_named("gemm", 1024);
  sizing.queued(gemm); // never drains: a kernel that ends only once a later one runs
  EXPECT_TRUE(sizing.await_first(gemm, std::chrono::milliseconds(1)));
  EXPECT_EQ(sizing.capacity(gemm, 240), share(64 * kMiB, 240));
}

TEST(RowSizing, NoWaitWhereSizingLearnsNothingFromIt) {
  const KernelMap gemm = map_named("gemm", 1024);
  const KernelMap staged = map_named("staged", 1024, /*sized=*/false);
  // Nothing of the kernel queued; another kernel queued.
  RowSizing sizing(64 * kMiB, 1024 * kMiB);
  sizing.queued(map_named("other", 1024));
  EXPECT_FALSE(sizing.await_first(gemm, std::chrono::hours(1)));
  // Rows the build sized; the `first` rule (CUTRACE_ROW_RULE=first keeps the earlier behaviour).
  sizing.queued(staged);
  EXPECT_FALSE(sizing.await_first(staged, std::chrono::hours(1)));
  RowSizing first(64 * kMiB, 1024 * kMiB, /*whole_ctas=*/false);
  first.queued(gemm);
  EXPECT_FALSE(first.await_first(gemm, std::chrono::hours(1)));
}

TEST(RowSizing, ALaunchBudgetOfZeroIsTakenWhereZeroMeansSomething) {
  // CUTRACE_LAUNCH_MB=0: the build's rows only; a pool or a disk bound of 0 stays refused.
  ::setenv("CUTRACE_TEST_SIZE_MB", "0", 1);
  EXPECT_EQ(megabytes_from_env("CUTRACE_TEST_SIZE_MB", 64, /*zero_ok=*/true), 0u);
  EXPECT_EQ(megabytes_from_env("CUTRACE_TEST_SIZE_MB", 64), 64 * kMiB);
  ::setenv("CUTRACE_TEST_SIZE_MB", "lots", 1);
  EXPECT_EQ(megabytes_from_env("CUTRACE_TEST_SIZE_MB", 64, /*zero_ok=*/true), 64 * kMiB);
  ::setenv("CUTRACE_TEST_SIZE_MB", "3", 1);
  EXPECT_EQ(megabytes_from_env("CUTRACE_TEST_SIZE_MB", 64, /*zero_ok=*/true), 3 * kMiB);
  ::unsetenv("CUTRACE_TEST_SIZE_MB");
  RowSizing none(0, 1024 * kMiB);
  EXPECT_EQ(none.capacity(map_named("k", 256), 8), 256u);
}

} // namespace
} // namespace cutrace
