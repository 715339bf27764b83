// Never silent (docs/launches.md, "Launches cutrace cannot record"): launches of a traced kernel
// that cutrace could not route and that the launch selection asked for are counted and said at
// exit, one line per kernel instance with the reason; CUTRACE=0 and a selection that did not ask
// for them stay silent. Each program runs in a process of its own and needs no GPU: a cudaKernel_t
// handle's launch is counted before CUDA is called, and fails there without a device.
#include <cutrace/launch.h>

#include "capture/unrecorded.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace cutrace {
namespace {

void kernel_h(int) {}
void twin_h(int, Slots *) {}
constexpr KernelMap kMapH{"kernel_h", 1, 16, Clock::clock64, "{}"};

// What a program does that makes a handle of a traced kernel (cutrace::getKernel, as the rewrite
// routes cudaGetKernel) and launches through it `launches` times, then exits.
void launch_through_a_handle(int launches) {
  registerTwin((const void *)kernel_h, (const void *)twin_h, kMapH, 1);
  const cudaKernel_t handle = reinterpret_cast<cudaKernel_t>(uintptr_t(0x1000));
  detail::note_handle(handle, (const void *)kernel_h); // what getKernel() does on success
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  for (int i = 0; i < launches; ++i)
    (void)launchKernelEx(&config, handle, i);
  std::exit(0);
}

class UnrecordedAtExit : public ::testing::Test {
protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(UnrecordedAtExit, HandleLaunchesTheSelectionAskedForAreCountedInOneLine) {
  EXPECT_EXIT(
      {
        enable(nullptr, "all", nullptr);
        launch_through_a_handle(3);
      },
      ::testing::ExitedWithCode(0),
      "cutrace: kernel_h: 3 launches ran unrecorded: launched through cudaKernel_t handles, "
      "which cutrace cannot route\n");
}

TEST_F(UnrecordedAtExit, OnlyLaunchesTheSelectionAskedForAreCounted) {
  EXPECT_EXIT(
      {
        enable(nullptr, "first:2", nullptr);
        launch_through_a_handle(5);
      },
      ::testing::ExitedWithCode(0), "cutrace: kernel_h: 2 launches ran unrecorded: ");
}

TEST_F(UnrecordedAtExit, SelectionThatAskedForNoneOfThemSaysNothing) {
  EXPECT_EXIT(
      {
        enable(nullptr, "none", nullptr);
        launch_through_a_handle(3);
      },
      ::testing::ExitedWithCode(0), "^$");
}

TEST_F(UnrecordedAtExit, TracingOffSaysNothing) {
  EXPECT_EXIT(
      {
        disable();
        launch_through_a_handle(3);
      },
      ::testing::ExitedWithCode(0), "^$");
}

TEST_F(UnrecordedAtExit, HandleOfAKernelWithoutTwinOrUnroutedUseSaysNothing) {
  EXPECT_EXIT(
      {
        enable(nullptr, "all", nullptr);
        const cudaKernel_t handle = reinterpret_cast<cudaKernel_t>(uintptr_t(0x2000));
        detail::note_handle(
            handle, (const void *)+[](int) {});
        cudaLaunchConfig_t config = {};
        (void)launchKernelEx(&config, handle, 1);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "^$");
}

// The instance name comes from the name CUDA reports for the kernel's pointer: mangled (C++) or
// plain (extern "C"); the name without template arguments is what a decode map calls the kernel.
TEST(UnrecordedInstanceName, MangledTemplateInstanceKeepsItsArgumentsAndDropsItsSignature) {
  std::string base;
  EXPECT_EQ(detail::instance_name("_ZN2ns4gemmIfEEvPf", &base), "ns::gemm<float>");
  EXPECT_EQ(base, "ns::gemm");
}

TEST(UnrecordedInstanceName, NonTemplateAndAnonymousNamespaceKernels) {
  std::string base;
  EXPECT_EQ(detail::instance_name("_Z4fillPfi", &base), "fill");
  EXPECT_EQ(base, "fill");
  EXPECT_EQ(detail::instance_name("_ZN12_GLOBAL__N_14gemmILi4EEEvv", &base),
            "(anonymous namespace)::gemm<4>");
  EXPECT_EQ(base, "(anonymous namespace)::gemm");
}

TEST(UnrecordedInstanceName, UnmangledNameIsKeptAsIs) {
  std::string base;
  EXPECT_EQ(detail::instance_name("c_kernel", &base), "c_kernel");
  EXPECT_EQ(base, "c_kernel");
}

} // namespace
} // namespace cutrace
