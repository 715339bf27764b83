// A run file opened for Python (docs/python.md): its launches listed without their records, each
// launch's records read back and decoded by the C++ decoder only when a table asks for it, so
// opening a run of any size costs the memory of its largest launch, not its size.
#ifndef CUTRACE_PYTHON_RUN_FILE_H
#define CUTRACE_PYTHON_RUN_FILE_H

#include <cutrace/completeness.h>
#include <cutrace/run_trace.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cutrace::python {

using Selection = std::optional<std::vector<uint64_t>>; // launch sequence numbers; none: all

class RunFile {
public:
  // Reads the run's sections with no launch buffer kept (RunReadOptions::max_buffer_bytes 0);
  // throws std::runtime_error with the reader's message when the file is not a run.
  explicit RunFile(std::string path);

  const std::string &path() const { return path_; }
  const RunTrace &run() const { return run_; }
  const RunCompleteness &completeness() const { return completeness_; }
  const std::string &kernel(const RunLaunch &launch) const { return run_.maps[launch.map].kernel; }

  // Indexes into run().launches of the launches with these sequence numbers (all when empty);
  // an unknown sequence number throws std::out_of_range naming the ones the run holds.
  std::vector<size_t> select(const Selection &sequences) const;
  // The launch with its records decoded (read again from the file when they were left out).
  RunLaunch detailed(size_t index) const;

private:
  std::string path_;
  RunTrace run_;
  RunCompleteness completeness_;
};

} // namespace cutrace::python

#endif // CUTRACE_PYTHON_RUN_FILE_H
