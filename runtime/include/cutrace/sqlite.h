// A decoded run as an SQLite database, for SQL and pandas (docs/analysis.md, "SQL and pandas"):
// tables meta, launches, rows, events and flows. Library `cutrace_sqlite` (cutrace_analysis plus
// the system SQLite3), so programs that never write SQLite do not link it.
#ifndef CUTRACE_SQLITE_H
#define CUTRACE_SQLITE_H

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <cutrace/run_trace.h>

namespace cutrace {

// Version of the schema below; bumped when a table or column changes meaning or goes away.
inline constexpr int kSqliteSchemaVersion = 2;

struct SqliteOptions {
  std::string tool_version;             // meta 'tool_version'
  std::vector<std::string> input_files; // meta 'input_file', one row each, in order
  // Reads the records of a launch the run holds without them (cutrace::with_detail): the
  // database is then written launch by launch, one launch's records in memory at a time.
  std::function<std::optional<RunLaunch>(const RunLaunch &)> load_detail;
};

// Writes every launch of `run` (with its records; RunLaunch::detail) to `path`: a new database
// built in a temporary file beside `path`, then renamed over it, so a failure leaves `path` as it
// was. Returns the reason when nothing was written.
std::optional<std::string> write_sqlite(const std::string &path, const RunTrace &run,
                                        const SqliteOptions &options = {});

} // namespace cutrace

#endif // CUTRACE_SQLITE_H
