// A whole run in one `.ctrace` file (container version 2, docs/FORMAT.md): the process's decode
// maps, then one section per recorded launch with its compact buffer, appended while the program
// runs. Version 1 files (one launch: MAP, GEOM, BUF) read as a run of one launch.
// Pure C++17, no CUDA: library `cutrace_format`.
#ifndef CUTRACE_RUN_H
#define CUTRACE_RUN_H

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <cutrace/ctrace.h>

namespace cutrace {

inline constexpr uint32_t kRunContainerVersion = 2;

// LaunchRecord::flags
inline constexpr uint32_t kLaunchInGraph = 1u; // captured into a CUDA graph: its buffer holds
                                               // the graph's last replay before the write

// What a buffer's row headers say was lost, without decoding its records.
struct BufferGaps {
  uint64_t dropped_events = 0; // Σ dropped counts of the closed rows
  uint32_t rows_overflowed = 0;
  uint32_t rows_never_ended = 0; // started, not closed, with records
  uint32_t slots_needed = 0;     // the most record slots an overflowed row attempted
  bool rows_sized_at_launch = false; // buffer header word 15, bit 1
  // CTAs with no rows: the launch recorded 1 CTA in cta_stride (buffer header word 15).
  uint64_t ctas_left_out = 0;
  uint32_t cta_stride = 1;
};
BufferGaps buffer_gaps(const uint8_t *buffer, size_t size);

// One recorded launch (section `LNCH`).
struct LaunchRecord {
  uint32_t map = 0;          // index into Run::maps
  uint32_t device = 0;       // CUDA device ordinal in the recording process
  uint64_t stream = 0;       // the cudaStream_t handle value: an id, 0 = legacy default stream
  uint32_t launch_index = 0; // the kernel's launch ordinal in the process, unrecorded ones counted
  uint32_t flags = 0;        // kLaunchInGraph
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint64_t host_enqueue_ns = 0; // host CLOCK_REALTIME when the launch was enqueued; 0 = unknown
  uint64_t sequence = 0;        // the launch's place among the process's recorded launches
  std::vector<uint8_t> buffer;  // buffer header + rows, compact or full layout
  // Set by a reader with a buffer budget (RunReadOptions): the buffer was not kept, only its
  // extent in globaltimer ns (earliest row start, latest row end or start).
  bool buffer_dropped = false;
  uint64_t first_ns = 0, last_ns = 0;
  BufferGaps gaps; // with buffer_dropped: what the row headers said was lost
  // Where its section's body is in the file (a run read from a file): read_launch_buffer()
  // brings the buffer back one launch at a time. 0: not known (in memory, version 1).
  uint64_t body_offset = 0, body_length = 0;
  uint32_t section_flags = 0;
};

// How much of a run a reader keeps in memory.
struct RunReadOptions {
  // Launch buffers are kept, in file order, while their total stays within this; later ones
  // keep only their extent (LaunchRecord::buffer_dropped), so reading a run of any length
  // needs at most this much for buffers.
  uint64_t max_buffer_bytes = UINT64_MAX;
};

// A launch section the reader could not keep (cut short by a crash or a kill, damaged): what it
// could still tell of it (docs/analysis.md, "Completeness").
struct LostLaunch {
  std::optional<uint64_t> sequence; // known when the section's fixed fields are whole
  std::optional<uint32_t> map;
  std::string why;
};

struct Run {
  std::string run_json;             // section `RUN `: program, pid, host, rank, selection
  std::vector<std::string> devices; // sections `DEV `: one JSON per device the run used, with
                                    // its clock alignment (added when first used)
  std::vector<std::string> maps;    // sections `MAP `, in file order: LaunchRecord::map indexes
  std::vector<LaunchRecord> launches;
  std::string end_json;              // section `END `: what was recorded and skipped; empty when
                                     // the program did not finish writing (crash, kill)
  std::vector<std::string> problems; // e.g. a truncated last section, dropped
  std::vector<LostLaunch> lost;      // launch sections among those problems
};

// Reads a version 2 run, or a version 1 single launch as a run of one (map 0, device 0).
Expected<Run> parse_run(const uint8_t *data, size_t size);
Expected<Run> read_run_file(const std::string &path, const RunReadOptions &options = {});
// The buffer of a launch a reader dropped (LaunchRecord::buffer_dropped, body_offset != 0), read
// again from `path`: exporters that write launch by launch hold one launch's records at a time.
Expected<std::vector<uint8_t>> read_launch_buffer(const std::string &path,
                                                  const LaunchRecord &launch);

// How a launch's buffer is stored in its `LNCH` section (docs/FORMAT.md, "Runs"): as it is, or
// delta-coded (section flag bit 0; the runtime's CUTRACE_COMPRESS=delta). Readers read both.
enum class LaunchCoding { plain, delta };

std::vector<uint8_t> encode_launch_section(const LaunchRecord &launch,
                                           LaunchCoding coding = LaunchCoding::plain);
std::vector<uint8_t> encode_run(const Run &run); // the whole file, END included when not empty

// Appends a run to an open file section by section, so a run's size in memory is one launch.
// The preamble's section count is "to the end of the file": a run cut short by a crash keeps
// every section written before it.
class RunWriter {
public:
  // Creates `path` exclusively (an existing file is an error: runs never overwrite) and writes
  // the preamble and the `RUN ` section.
  static Expected<RunWriter *> create(const std::string &path, const std::string &run_json);
  ~RunWriter();
  RunWriter(const RunWriter &) = delete;
  RunWriter &operator=(const RunWriter &) = delete;

  std::optional<std::string> add_device(const std::string &device_json);
  std::optional<std::string> add_map(const std::string &map_json);
  std::optional<std::string> add_launch(const LaunchRecord &launch);
  void set_launch_coding(LaunchCoding coding) { coding_ = coding; }
  std::optional<std::string> finish(const std::string &end_json); // writes `END ` and closes
  uint64_t bytes_written() const { return bytes_; }
  const std::string &path() const { return path_; }

private:
  RunWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  std::optional<std::string> write(const std::vector<uint8_t> &data);
  // Writes the pieces in order with as few system calls as the kernel allows (writev); a
  // launch's records go from where the drain packed them straight to the file, uncopied.
  std::optional<std::string> write_pieces(const void *const *data, const size_t *sizes, int n);
  int fd_;
  std::string path_;
  uint64_t bytes_ = 0;
  LaunchCoding coding_ = LaunchCoding::plain;
  std::vector<uint8_t> coded_; // reused launch after launch
};

// ---- Compact buffers (docs/FORMAT.md, "Compact layout") ----

// The compact form of a full-layout buffer: header (version 2, layout compact), every row
// header with its stored-record count in bytes 60-63, then the rows' records back to back.
// A buffer that is not a valid full buffer is returned unchanged.
std::vector<uint8_t> compact_buffer(const uint8_t *full, size_t size);

// Row headers and records of a full-layout buffer as some copy holds them: row r's header at
// headers + r * header_pitch, its first record at records + r * record_pitch, at most
// record_capacity records each (the device's own layout has both pitches = row stride).
struct RowsInMemory {
  const uint8_t *headers;
  size_t header_pitch;
  const uint8_t *records;
  size_t record_pitch;
  uint32_t record_capacity;
  const uint8_t *header(uint32_t r) const { return headers + r * header_pitch; }
  const uint8_t *records_of(uint32_t r) const { return records + r * record_pitch; }
};
// The compact buffer of the launch whose full header is `full`.
std::vector<uint8_t> compact_rows(const BufferHeader &full, const RowsInMemory &rows);
// The same into `out`, whose memory is reused: a drain that packs launch after launch into the
// same vectors touches no fresh pages (a fresh 12 MB vector costs more in page faults and
// zeroing than packing it).
void compact_rows_into(const BufferHeader &full, const RowsInMemory &rows,
                       std::vector<uint8_t> &out);

// Earliest row start and latest row end (or start, for a row that never closed) of a buffer in
// either layout, in globaltimer ns; {0, 0} when no row started or the header is invalid.
std::pair<uint64_t, uint64_t> buffer_extent_ns(const uint8_t *buffer, size_t size);

// How many records a row header says were stored (min(attempted, max_events)) for a closed
// row; nullopt for a row that never closed (the records must then be scanned).
std::optional<uint32_t> stored_records(const uint8_t *row_header, uint32_t max_events);

} // namespace cutrace

#endif // CUTRACE_RUN_H
