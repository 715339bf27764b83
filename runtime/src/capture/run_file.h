// The process's run file (docs/guide.md, "Whole runs"): `<dir>/<program>.<pid>.ctrace`, created at
// the first recorded launch and appended to while the program runs. Thread-safe: the launching
// threads register maps, the drain thread appends launches and devices.
#ifndef CUTRACE_SRC_CAPTURE_RUN_FILE_H
#define CUTRACE_SRC_CAPTURE_RUN_FILE_H

#include <cutrace/map.h>
#include <cutrace/run.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace cutrace {

class RunFile {
public:
  // `selection`: the launch selection in force, as text, for the RUN section; `coding`: how
  // launch buffers are stored (CUTRACE_COMPRESS).
  RunFile(std::string dir, std::string launches, std::string kernels,
          LaunchCoding coding = LaunchCoding::plain);

  // The map's index in the run (adding its `MAP ` section the first time); nullopt when the
  // file cannot be created or written (the error is printed once).
  std::optional<uint32_t> map_index(const KernelMap &map);
  // Appends a device description (`DEV `) once per ordinal.
  void add_device(int ordinal, const std::string &device_json);
  bool has_device(int ordinal);
  // Appends one recorded launch; false (and the error printed) when it could not be written.
  bool add_launch(const LaunchRecord &launch);
  // Writes `END ` and closes; later calls do nothing. Returns the path, empty if never created.
  std::string finish(const std::string &end_json);

  uint64_t bytes_written();
  std::string path();

private:
  bool open_locked(); // creates the file at first use
  void fail_locked(const std::string &why);

  std::mutex mu_;
  std::string dir_, launches_, kernels_;
  LaunchCoding coding_;
  std::unique_ptr<RunWriter> writer_;
  bool failed_ = false, finished_ = false;
  std::string path_;
  uint64_t bytes_ = 0;                   // after finish()
  std::map<std::string, uint32_t> maps_; // map JSON -> index
  std::set<int> devices_;
};

// Program name of this process (for file names and the RUN section).
std::string program_name();

} // namespace cutrace

#endif // CUTRACE_SRC_CAPTURE_RUN_FILE_H
