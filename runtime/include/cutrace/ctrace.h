// `.ctrace` files: one launch's raw trace buffer with everything needed to decode it offline
// (docs/FORMAT.md, ".ctrace container"). No CUDA needed: the container and the files are in
// `cutrace_format` (shared by capture and analysis), decoding and the JSON in `cutrace_analysis`.
#ifndef CUTRACE_CTRACE_H
#define CUTRACE_CTRACE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <cutrace/decode.h>
#include <cutrace/files.h>

namespace cutrace {

inline constexpr char kCtraceMagic[8] = {'C', 'U', 'T', 'R', 'A', 'C', 'E', '\0'};
inline constexpr uint32_t kCtraceVersion = 1;

struct Ctrace {
  std::string map_json; // the kernel's decode map, as KernelMap::json
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t launch_index = 0; // 0 for the kernel's first recorded launch in the process, then 1, ...
  std::vector<uint8_t> buffer; // the device buffer: 64-byte header + rows
};

std::vector<uint8_t> encode_ctrace(const Ctrace &c);
Expected<Ctrace> parse_ctrace(const uint8_t *data, size_t size);

// Parses the map and decodes the buffer; map errors come back as the error.
Expected<Trace> decode_ctrace(const Ctrace &c, const DecodeOptions &options = {});
// Decodes the buffer with a map the caller has already parsed from `c.map_json`.
Trace decode_ctrace(const Ctrace &c, const DecodeMap &map, const DecodeOptions &options = {});

Expected<Ctrace> read_ctrace_file(const std::string &path);

enum class Overwrite { replace, never };
// Writes through a temporary file in the same directory and renames it into place, so readers
// never see a partial file. With Overwrite::never an existing `path` is an error.
// Returns the error, or nullopt on success.
std::optional<std::string> write_file_atomic(const std::string &path, const std::string &data,
                                             Overwrite mode = Overwrite::replace);
std::optional<std::string> write_file_atomic(const std::string &path,
                                             const std::vector<uint8_t> &data,
                                             Overwrite mode = Overwrite::replace);

// Writes `c` to `path` as write_file_atomic does, first creating the folders above `path`
// (`Recorder::dump("debug/run1/k")` works in a fresh directory). Returns the error, or nullopt.
std::optional<std::string> write_ctrace_file(const std::string &path, const Ctrace &c,
                                             Overwrite mode = Overwrite::replace);

// The decoded launch as one JSON document (the `<kernel>.json` output).
std::string trace_summary_json(const DecodeMap &map, const Trace &trace);

} // namespace cutrace

#endif // CUTRACE_CTRACE_H
