// A crash inside a guarded parse (docs/reliability.md) ends that parse, not the tool.
#include "compat/CrashGuard.h"

#include <functional>
#include <gtest/gtest.h>

namespace {

// Recursion the optimiser cannot turn into a loop: each frame keeps a live array.
__attribute__((noinline)) int recurseForever(volatile int Depth) {
  volatile char Frame[4096];
  Frame[0] = static_cast<char>(Depth);
  return recurseForever(Depth + 1) + Frame[0];
}

} // namespace

TEST(CrashGuard, StackOverflowIsCaughtAndReported) {
  bool Reached = false;
  EXPECT_FALSE(cutrace::compat::runGuarded([&] {
    Reached = true;
    recurseForever(0);
  }));
  EXPECT_TRUE(Reached);
}

TEST(CrashGuard, InvalidMemoryAccessIsCaught) {
  EXPECT_FALSE(cutrace::compat::runGuarded([] {
    volatile int *Null = nullptr;
    *Null = 1;
  }));
}

TEST(CrashGuard, ToolKeepsWorkingAfterACrash) {
  ASSERT_FALSE(cutrace::compat::runGuarded([] { recurseForever(0); }));
  int Value = 0;
  EXPECT_TRUE(cutrace::compat::runGuarded([&] { Value = 42; }));
  EXPECT_EQ(Value, 42);
}

TEST(CrashGuard, DeepButFiniteRecursionSucceedsOnTheLargeStack) {
  // ~64 MB of frames: more than a default 8 MB thread stack holds.
  std::function<int(int)> Down = [&](int N) {
    volatile char Frame[4096];
    Frame[0] = 1;
    return N == 0 ? 0 : Down(N - 1) + Frame[0];
  };
  int Result = -1;
  EXPECT_TRUE(cutrace::compat::runGuarded([&] { Result = Down(16000); }));
  EXPECT_EQ(Result, 16000);
}
