// The SQLite export holds one launch's records at a time: the bytes it holds at its peak grow with
// the number of launches only by their headers, not by their records (docs/PERFORMANCE.md,
// "Exporters"). Bytes are counted at operator new/delete, not timed: SQLite's own pages (malloc)
// are bounded by its cache_size pragma and not counted here.
#include "support/run_builder.h"

#include <cutrace/run.h>
#include <cutrace/run_trace.h>
#include <cutrace/sqlite.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <unistd.h>

namespace {

std::atomic<size_t> g_held{0}, g_peak{0};

void *counted_alloc(size_t n) {
  // 16 bytes before the block keep its size (and keep the block 16-byte aligned).
  auto *p = static_cast<size_t *>(std::malloc(n + 16));
  if (!p)
    throw std::bad_alloc();
  *p = n;
  const size_t now = g_held.fetch_add(n) + n;
  size_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
  return reinterpret_cast<char *>(p) + 16;
}

void counted_free(void *block) {
  if (!block)
    return;
  auto *p = reinterpret_cast<size_t *>(static_cast<char *>(block) - 16);
  g_held.fetch_sub(*p);
  std::free(p);
}

} // namespace

void *operator new(size_t n) { return counted_alloc(n); }
void *operator new[](size_t n) { return counted_alloc(n); }
void operator delete(void *p) noexcept { counted_free(p); }
void operator delete[](void *p) noexcept { counted_free(p); }
void operator delete(void *p, size_t) noexcept { counted_free(p); }
void operator delete[](void *p, size_t) noexcept { counted_free(p); }

namespace {

using namespace cutrace;
using test_support::step_map_json;
using test_support::step_record;

constexpr uint32_t kCtas = 64; // per launch: 128 rows, 320 events

// A run file of `launches` step launches of kCtas CTAs each.
std::string write_run_file(const std::string &path, uint32_t launches) {
  Run run;
  run.run_json = R"({"program":"loop","pid":7,"host":"h"})";
  run.devices.push_back(R"({"index":0,"name":"GPU","aligned":false})");
  run.maps.push_back(step_map_json());
  for (uint32_t i = 0; i < launches; ++i)
    run.launches.push_back(step_record(0, 0, 0, i, kCtas, 1'000'000'000ull + 100'000ull * i));
  run.end_json = R"({"kernels":[]})";
  const std::vector<uint8_t> bytes = encode_run(run);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
  return path;
}

// Peak bytes held from reading `launches` launches to the database written; `streamed`: read
// without records, each launch read again as it is written (what trace-view --sqlite does);
// else every launch decoded first.
size_t peak_bytes_of_sqlite_export(uint32_t launches, bool streamed) {
  // Named per process and case: ctest runs the cases of this executable side by side.
  const std::string stem = ::testing::TempDir() + "/memory_" + std::to_string(::getpid()) + "_" +
                           std::to_string(launches) + (streamed ? "_streamed" : "_decoded");
  const std::string file = stem + ".ctrace", db = stem + ".db";
  write_run_file(file, launches);
  std::remove(db.c_str());
  g_peak = g_held.load();
  const size_t before = g_held.load();
  {
    RunReadOptions read;
    if (streamed)
      read.max_buffer_bytes = 0;
    Expected<Run> raw = read_run_file(file, read);
    EXPECT_TRUE(raw) << raw.error;
    Expected<RunTrace> run = decode_run(*raw, file);
    EXPECT_TRUE(run) << run.error;
    SqliteOptions options;
    if (streamed)
      options.load_detail = [&run](const RunLaunch &l) { return with_detail(*run, l); };
    EXPECT_EQ(write_sqlite(db, *run, options), std::nullopt);
  }
  std::remove(file.c_str());
  std::remove(db.c_str());
  return g_peak - before;
}

// Per launch, what a run holds without its records: the launch's place, geometry and kernel.
constexpr size_t kHeaderBytesPerLaunch = 2048;

TEST(ExportMemory, SqliteHoldsOneLaunchsRecordsAtATime) {
  const size_t small = peak_bytes_of_sqlite_export(25, true);
  const size_t large = peak_bytes_of_sqlite_export(100, true);
  std::printf("streamed: 25 launches %zu bytes, 100 launches %zu bytes at the peak\n", small,
              large);
  EXPECT_LE(large, small + 75 * kHeaderBytesPerLaunch)
      << "25 launches: " << small << " bytes, 100 launches: " << large;
}

// The measure can fail: every launch decoded before writing grows by every launch's records.
TEST(ExportMemory, DecodingEveryLaunchFirstGrowsWithTheRun) {
  const size_t small = peak_bytes_of_sqlite_export(25, false);
  const size_t large = peak_bytes_of_sqlite_export(100, false);
  std::printf("decoded first: 25 launches %zu bytes, 100 launches %zu bytes at the peak\n", small,
              large);
  EXPECT_GT(large, small + 75 * kHeaderBytesPerLaunch)
      << "25 launches: " << small << " bytes, 100 launches: " << large;
}

} // namespace
