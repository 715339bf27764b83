#include "run_file.h"

#include <algorithm>
#include <stdexcept>

namespace cutrace::python {

RunFile::RunFile(std::string path) : path_(std::move(path)) {
  RunReadOptions lean;
  lean.max_buffer_bytes = 0; // every launch keeps only its extent until a table reads it
  Expected<Run> raw = read_run_file(path_, lean);
  if (!raw)
    throw std::runtime_error(raw.error);
  Expected<RunTrace> decoded = decode_run(*raw, path_);
  if (!decoded)
    throw std::runtime_error(path_ + ": " + decoded.error);
  run_ = std::move(*decoded);
  completeness_ = run_completeness(run_);
}

std::vector<size_t> RunFile::select(const Selection &sequences) const {
  std::vector<size_t> chosen;
  if (!sequences) {
    for (size_t i = 0; i < run_.launches.size(); ++i)
      chosen.push_back(i);
    return chosen;
  }
  for (uint64_t s : *sequences) {
    auto it = std::find_if(run_.launches.begin(), run_.launches.end(),
                           [s](const RunLaunch &l) { return l.sequence == s; });
    if (it == run_.launches.end()) {
      std::string held;
      for (const RunLaunch &l : run_.launches)
        held += (held.empty() ? "" : ", ") + std::to_string(l.sequence);
      throw std::out_of_range(path_ + ": no launch " + std::to_string(s) +
                              " (sequence numbers held: " + held + ")");
    }
    chosen.push_back(size_t(it - run_.launches.begin()));
  }
  return chosen;
}

RunLaunch RunFile::detailed(size_t index) const {
  const RunLaunch &listed = run_.launches.at(index);
  if (listed.detail)
    return listed;
  std::optional<RunLaunch> loaded = with_detail(run_, listed);
  if (!loaded)
    throw std::runtime_error(path_ + ": the records of launch " + std::to_string(listed.sequence) +
                             " cannot be read again (the file changed since it was opened?)");
  return std::move(*loaded);
}

} // namespace cutrace::python
