// The host side of the drain for one big launch (docs/PERFORMANCE.md section 5, "Where the
// drain's time went"): packing a launch's rows out of the pinned copy into the compact layout and
// appending it to the run file, as the drain did before (a fresh vector per launch, the section
// built by two more copies, stdio write and flush) and as it does now (packed into a reused
// vector, written straight from it with writev; the write on a thread of its own, so a launch
// costs the slower of the two stages, not their sum). No GPU: the "copy" is a synthetic
// full-layout buffer of the GEMM's shape (4096 rows of 176 records, 11.8 MB compact).
//   pack_write DIR [launches]     writes DIR/old.ctrace and DIR/new.ctrace, then removes them
#include <cutrace/run.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

constexpr uint32_t kRows = 4096, kRecords = 176, kCapacity = 256;

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

void put32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: pack_write DIR [launches]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int launches = argc > 2 ? std::atoi(argv[2]) : 101;
  const uint32_t grid[3] = {kRows, 1, 1}, block[3] = {32, 1, 1};
  const cutrace::BufferHeader h =
      cutrace::BufferHeader::for_launch(1, kCapacity, cutrace::Clock::clock64, grid, block);
  // The pinned copy as the drain's first strided copy leaves it: header + records, row by row.
  const size_t width = cutrace::kRowHeaderBytes + size_t(kRecords) * cutrace::kRecordBytes;
  std::vector<uint8_t> copy(size_t(kRows) * width);
  for (uint32_t r = 0; r < kRows; ++r) {
    uint8_t *row = copy.data() + size_t(r) * width;
    put32(row, cutrace::kRowStartTag);
    put32(row + 32, cutrace::kRowEndTag);
    put32(row + 36, kRecords);
    for (uint32_t e = 0; e < kRecords; ++e) {
      uint8_t *rec = row + cutrace::kRowHeaderBytes + size_t(e) * cutrace::kRecordBytes;
      put32(rec, (e % 2 ? 2u : 1u) << 30);
      put32(rec + 4, e / 2);
      const uint64_t t = 1000000 + 1000ull * e + r;
      std::memcpy(rec + 8, &t, 8);
    }
  }
  const cutrace::RowsInMemory rows{copy.data(), width, copy.data() + cutrace::kRowHeaderBytes,
                                   width, kRecords};
  cutrace::LaunchRecord meta;
  std::copy(grid, grid + 3, meta.grid);
  std::copy(block, block + 3, meta.block);

  // Before: what the drain did per launch.
  const std::string old_path = dir + "/old.ctrace", new_path = dir + "/new.ctrace";
  std::filesystem::remove(old_path), std::filesystem::remove(new_path);
  std::FILE *f = std::fopen(old_path.c_str(), "wb");
  double old_pack = 0, old_write = 0;
  uint64_t bytes = 0;
  for (int i = 0; i < launches; ++i) {
    auto t = std::chrono::steady_clock::now();
    cutrace::LaunchRecord l = meta;
    l.buffer = cutrace::compact_rows(h, rows);
    const std::vector<uint8_t> section = cutrace::encode_launch_section(l);
    old_pack += ms_since(t);
    t = std::chrono::steady_clock::now();
    std::fwrite(section.data(), 1, section.size(), f);
    std::fflush(f);
    old_write += ms_since(t);
    bytes += section.size();
  }
  std::fclose(f);

  // Now: packed into a reused vector, written from it (plain, then delta-coded).
  struct Stage {
    double pack = 0, write = 0;
    uint64_t file_bytes = 0;
  } now[2];
  for (int coded = 0; coded < 2; ++coded) {
    std::filesystem::remove(new_path);
    cutrace::Expected<cutrace::RunWriter *> w = cutrace::RunWriter::create(new_path, "{}");
    if (!w) {
      std::fprintf(stderr, "pack_write: %s\n", w.error.c_str());
      return 1;
    }
    (*w)->set_launch_coding(coded ? cutrace::LaunchCoding::delta : cutrace::LaunchCoding::plain);
    cutrace::LaunchRecord l = meta;
    for (int i = 0; i < launches; ++i) {
      auto t = std::chrono::steady_clock::now();
      cutrace::compact_rows_into(h, rows, l.buffer);
      now[coded].pack += ms_since(t);
      t = std::chrono::steady_clock::now();
      if (auto err = (*w)->add_launch(l)) {
        std::fprintf(stderr, "pack_write: %s\n", err->c_str());
        return 1;
      }
      now[coded].write += ms_since(t);
    }
    now[coded].file_bytes = (*w)->bytes_written();
    (*w)->finish("{}");
    delete *w;
  }
  std::filesystem::remove(old_path), std::filesystem::remove(new_path);

  const double mb = bytes / 1e6 / launches;
  std::printf("%d launches of %.2f MB (packed from a %.2f MB copy), into %s\n\n", launches, mb,
              copy.size() / 1e6, dir.c_str());
  std::printf("| drain host side | pack ms/launch | write ms/launch | launch every ms | MB/s |\n"
              "|---|---|---|---|---|\n");
  const double o = (old_pack + old_write) / launches;
  std::printf("| before: fresh vectors, section copied, fwrite + fflush, one thread | %.2f | %.2f "
              "| %.2f | %.0f |\n",
              old_pack / launches, old_write / launches, o, mb / o * 1e3);
  const char *names[2] = {"now: reused vector, writev from it, write on its own thread",
                          "now, CUTRACE_COMPRESS=delta (coded on the writing thread)"};
  for (int coded = 0; coded < 2; ++coded) {
    const double n = std::max(now[coded].pack, now[coded].write) / launches;
    std::printf("| %s (file %.2f MB/launch) | %.2f | %.2f | %.2f | %.0f |\n", names[coded],
                now[coded].file_bytes / 1e6 / launches, now[coded].pack / launches,
                now[coded].write / launches, n, mb / n * 1e3);
  }
  return 0;
}
