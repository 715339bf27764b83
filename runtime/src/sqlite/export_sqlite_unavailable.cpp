// cutrace_sqlite when CMake found no SQLite: trace-view still builds (a GPU machine often lacks
// sqlite3.h) and --sqlite fails with a message instead of the build failing (docs/analysis.md,
// "SQL and pandas").
#include <cutrace/sqlite.h>

namespace cutrace {

std::optional<std::string> write_sqlite(const std::string &path, const RunTrace &,
                                        const SqliteOptions &) {
  return path + ": this trace-view was built without SQLite, so --sqlite is unavailable; install "
                "SQLite's development files (Debian: libsqlite3-dev) and rebuild, or use --json "
                "or --perfetto";
}

} // namespace cutrace
