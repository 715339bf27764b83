// The launch entry points' host side (cutrace/launch.h, docs/guide.md "Launches in a traced
// build") as far as it runs without a GPU: the twin registry, the choice of the original when
// nothing may be recorded, and argument arrays that are never read past. The GPU half is
// test/device/launch_forms.cu.
#include <cutrace/launch.h>

#include <gtest/gtest.h>

#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace cutrace {
namespace {

// Stand-ins for kernels: the registry only sees their host addresses.
void kernel_a(int) {}
void twin_a(int, Slots *) {}
void twin_a_other(int, Slots *) {}
void kernel_b(float *, int) {}
void twin_b(float *, int, Slots *) {}
void kernel_c(int) {}
void twin_c(int, Slots *) {}
void kernel_d(int) {} // a kernel of its own: the note is said once per kernel and process
void twin_d(int, Slots *) {}
void twin_d_other(int, Slots *) {}
void unregistered(int) {}

constexpr KernelMap kMapA{"kernel_a", 1, 16, Clock::clock64, "{}"};
constexpr KernelMap kMapB{"kernel_b", 1, 16, Clock::clock64, "{}"};
constexpr KernelMap kMapC{"kernel_c", 1, 16, Clock::clock64, "{}"};
constexpr KernelMap kMapD{"kernel_d", 1, 16, Clock::clock64, "{}"};

const detail::LaunchShape kShape{dim3(2), dim3(64), 0, nullptr, false};

const void *address(void (*f)(int)) { return (const void *)f; }

TEST(Launch, UnregisteredKernelRunsTheOriginal) {
  const detail::LaunchChoice c = detail::choose_launch(address(unregistered), 1, kShape);
  EXPECT_EQ(c.func, address(unregistered));
  EXPECT_EQ(c.slots, nullptr);
}

TEST(Launch, RegisteringTheSamePairTwiceIsHarmless) {
  EXPECT_TRUE(registerTwin(address(kernel_a), (const void *)twin_a, kMapA, 1));
  EXPECT_TRUE(registerTwin(address(kernel_a), (const void *)twin_a, kMapA, 1));
  // A wrong parameter count reveals the registration: the note names the registered count.
  testing::internal::CaptureStderr();
  const detail::LaunchChoice c = detail::choose_launch(address(kernel_a), 2, kShape);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(c.func, address(kernel_a));
  EXPECT_EQ(c.slots, nullptr);
  EXPECT_NE(err.find("cutrace: kernel_a: launch not recorded, the original kernel ran instead: "
                     "the kernel was registered with 1 parameter(s) and this launch passes 2"),
            std::string::npos)
      << err;
}

TEST(Launch, FirstRegisteredTwinIsKeptAndTheNoteIsSaidOnce) {
  registerTwin(address(kernel_d), (const void *)twin_d, kMapD, 1);
  registerTwin(address(kernel_d), (const void *)twin_d_other, kMapD, 4);
  testing::internal::CaptureStderr();
  detail::choose_launch(address(kernel_d), 4, kShape);
  detail::choose_launch(address(kernel_d), 4, kShape);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("registered with 1 parameter(s) and this launch passes 4"), std::string::npos)
      << err;
  EXPECT_EQ(err.find("cutrace:"), err.rfind("cutrace:")) << err;
}

TEST(Launch, DisabledTracingRunsTheOriginal) {
  registerTwin((const void *)kernel_b, (const void *)twin_b, kMapB, 2);
  disable();
  const detail::LaunchChoice c = detail::choose_launch((const void *)kernel_b, 2, kShape);
  EXPECT_EQ(c.func, (const void *)kernel_b);
  EXPECT_EQ(c.slots, nullptr);
  const detail::LaunchChoice p =
      detail::choose_pair_launch(kMapB, (const void *)kernel_b, (const void *)twin_b, 2, kShape);
  EXPECT_EQ(p.func, (const void *)kernel_b);
  EXPECT_EQ(p.slots, nullptr);
  const detail::LaunchChoice a =
      detail::choose_launch((const void *)kernel_b, detail::kUnknownParams, kShape);
  EXPECT_EQ(a.func, (const void *)kernel_b);
  EXPECT_EQ(a.slots, nullptr);
}

TEST(Launch, StaticPairIsRegisteredForLaterRegistryLaunches) {
  disable();
  const detail::LaunchChoice p =
      detail::choose_pair_launch(kMapC, address(kernel_c), (const void *)twin_c, 1, kShape);
  EXPECT_EQ(p.func, address(kernel_c));
  testing::internal::CaptureStderr();
  detail::choose_launch(address(kernel_c), 3, kShape);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cutrace: kernel_c: launch not recorded"), std::string::npos) << err;
}

// `n` entries that end where an unreadable page begins: reading one entry past them faults.
void **guarded_array(unsigned n) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t bytes = ((n * sizeof(void *)) / page + 2) * page;
  char *p = static_cast<char *>(
      mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  EXPECT_NE(p, MAP_FAILED);
  EXPECT_EQ(mprotect(p + bytes - page, page, PROT_NONE), 0);
  return reinterpret_cast<void **>(p + bytes - page) - n;
}

TEST(Launch, ArgumentArrayWithSlotsReadsExactlyTheRegisteredCount) {
  for (unsigned n : {0u, 1u, 3u, 15u, 16u, 17u, 300u}) {
    void **args = guarded_array(n);
    int values[300];
    for (unsigned i = 0; i < n; ++i)
      args[i] = &values[i];
    Slots *slots = reinterpret_cast<Slots *>(0x1234);
    detail::ArgsWithSlots with_slots(args, n, &slots);
    for (unsigned i = 0; i < n; ++i)
      ASSERT_EQ(with_slots.data()[i], &values[i]) << "n=" << n << " i=" << i;
    EXPECT_EQ(with_slots.data()[n], &slots) << "n=" << n;
    EXPECT_NE(with_slots.data(), args);
  }
}

} // namespace
} // namespace cutrace
