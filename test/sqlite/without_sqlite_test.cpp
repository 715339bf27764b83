// trace-view built where CMake finds no SQLite: --sqlite fails with a message that says why and
// what to do, and writes nothing (docs/analysis.md, "SQL and pandas").
#include <cutrace/sqlite.h>
#include <gtest/gtest.h>

#include <filesystem>

TEST(WithoutSqlite, SqliteOutputSaysItIsUnavailableAndWritesNothing) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "cutrace_without_sqlite_test.db").string();
  std::filesystem::remove(path);
  std::optional<std::string> err = cutrace::write_sqlite(path, cutrace::RunTrace{});
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->find("built without SQLite"), std::string::npos) << *err;
  EXPECT_NE(err->find("libsqlite3-dev"), std::string::npos) << *err;
  EXPECT_FALSE(std::filesystem::exists(path));
}
