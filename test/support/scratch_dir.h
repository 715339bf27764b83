// A fresh, empty folder per test, named by the process and the running test, for tests that
// write and read real files.
#ifndef CUTRACE_TEST_SUPPORT_SCRATCH_DIR_H
#define CUTRACE_TEST_SUPPORT_SCRATCH_DIR_H

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <unistd.h>

namespace cutrace::test_support {

inline std::filesystem::path scratch_dir(const std::string &prefix) {
  namespace fs = std::filesystem;
  fs::path dir =
      fs::temp_directory_path() / (prefix + std::to_string(::getpid()) + "_" +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

} // namespace cutrace::test_support

#endif // CUTRACE_TEST_SUPPORT_SCRATCH_DIR_H
