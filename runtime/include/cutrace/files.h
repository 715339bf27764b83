// Whole-file reads with a size bound, shared by the tools and the runtime (docs/cli.md, "Limits").
#ifndef CUTRACE_FILES_H
#define CUTRACE_FILES_H

#include <cstdint>
#include <string>
#include <vector>

#include <cutrace/expected.h>

namespace cutrace {

// An input larger than this is refused: far above any trace a run writes (CUTRACE_MAX_MB, 4096
// by default), and a pipe or a device (/dev/zero) gets an end.
inline constexpr uint64_t kMaxInputBytes = uint64_t(64) << 30;

// The whole file; larger than `max_bytes` is an error ("cannot read 'x': larger than N MiB, the
// bound for an input"), found from a regular file's size before reading.
Expected<std::vector<uint8_t>> read_file(const std::string &path,
                                         uint64_t max_bytes = kMaxInputBytes);

} // namespace cutrace

#endif // CUTRACE_FILES_H
