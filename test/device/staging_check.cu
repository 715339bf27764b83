// The staged recorder stores what the direct one stores. Built with -DCUTRACE_STAGING_SLOTS=8
// (docs/recorder-designs.md, "Staged in shared memory"), each kernel runs twice on one
// input: once with buffer header word 15 = 0 (rows 0-3 of each CTA staged in shared memory,
// rows 4 and 5 direct) and once with word 15 = 1 (every row direct, as in the mapped mode). Every
// record's head word and every payload must be equal in the two buffers, and the end headers'
// counts; times differ and are not compared. The kernels mix 1-, 2- and 3-slot events so records
// run past a block's end, fill rows of an odd capacity, or one below a block, past their end
// (overflow), and CTA 1 returns from the middle of its loop (the destructor's flush). Each way of
// copying staged blocks (CUTRACE_STAGING_SHARED, CUTRACE_STAGING_COPY) is its own build.
//   nvcc -std=c++17 -O3 -arch=sm_90a -Iruntime/include -DCUTRACE_STAGING_SLOTS=8 \
//        test/device/staging_check.cu -o staging_check && ./staging_check
// Prints one line per case and `staging_check: PASS` or `staging_check: FAIL` (exit status 1).
#include <cutrace/device.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#if CUTRACE_STAGING_SLOTS == 0
#error "build staging_check with -DCUTRACE_STAGING_SLOTS=<slots> (8 exercises the most blocks)"
#endif

namespace {

constexpr uint32_t kRows = 6, kThreads = kRows * 32, kCtas = 3;

template <uint32_t M> __global__ void mixed_events(cutrace::Slots *slots, int n, int quit_at) {
  const uint32_t warp = threadIdx.x / 32;
  cutrace::Group<M> g(slots, warp, kRows, warp * 32);
  for (int i = 0; i < n; ++i) {
    if (blockIdx.x == 1 && i == quit_at)
      return;
    const uint32_t b = g.stamp();
    g.instant(1, i % 3 == 0 ? i + 1 : 0); // one slot, or two with a payload
    if (i % 4 == warp % 4)
      g.begin(2, -i); // two slots
    g.end(2, 0);
    g.instant_if(i % 2 == 0, 3, 0);
    g.range(4, b, i % 5 == 0 ? 0 : int32_t(i) * 7); // the wide RANGE: two slots
  }
}

struct Row {
  std::vector<uint32_t> heads, payloads; // per record slot: head word; data word of payloads
  uint32_t count = 0, dropped = 0, end_tag = 0;
};

template <uint32_t M> std::vector<Row> run(int n, int quit_at, bool direct) {
  const uint64_t stride = cutrace::row_stride_bytes(M);
  const size_t bytes = cutrace::kBufferHeaderBytes + size_t(kCtas) * kRows * stride;
  void *buf = nullptr;
  cudaMalloc(&buf, bytes);
  cudaMemset(buf, 0, bytes);
  const uint32_t word15 = direct ? cutrace::kDirectStoresFlag : 0;
  cudaMemcpy(static_cast<uint8_t *>(buf) + 60, &word15, 4, cudaMemcpyHostToDevice);
  mixed_events<M><<<kCtas, kThreads>>>(static_cast<cutrace::Slots *>(buf), n, quit_at);
  std::vector<uint8_t> host(bytes);
  const cudaError_t err = cudaMemcpy(host.data(), buf, bytes, cudaMemcpyDeviceToHost);
  cudaFree(buf);
  if (err != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(err));
    return {};
  }
  std::vector<Row> rows;
  for (uint32_t r = 0; r < kCtas * kRows; ++r) {
    const uint8_t *row = host.data() + cutrace::kBufferHeaderBytes + r * stride;
    auto word = [](const uint8_t *p, uint32_t i) {
      uint32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      return v;
    };
    Row out;
    out.end_tag = word(row, 8);
    out.count = word(row, 9);
    out.dropped = word(row, 14);
    bool range_times = false; // the slot after a wide RANGE head holds times only
    for (uint32_t s = 0; s < M; ++s) {
      const uint8_t *slot = row + cutrace::kRowHeaderBytes + s * 8;
      const uint32_t head = word(slot, 0), data = word(slot, 1);
      if (range_times) {
        out.heads.push_back(~0u);
        out.payloads.push_back(0);
        range_times = false;
        continue;
      }
      const bool wide = (head & cutrace::kRangeBit) && (head & cutrace::kWideRange);
      const bool payload = !(head & cutrace::kRangeBit) &&
                           (head >> cutrace::kKindShift) == uint32_t(cutrace::RecordKind::payload);
      out.heads.push_back(head);
      out.payloads.push_back(wide || payload ? data : 0);
      range_times = wide;
    }
    rows.push_back(out);
  }
  return rows;
}

template <uint32_t M> bool check(const char *what, int n, int quit_at) {
  const std::vector<Row> staged = run<M>(n, quit_at, false), direct = run<M>(n, quit_at, true);
  if (staged.empty() || direct.empty())
    return false;
  uint32_t differing = 0, records = 0, ended = 0;
  for (size_t r = 0; r < staged.size(); ++r) {
    const Row &a = staged[r], &b = direct[r];
    if (a.heads != b.heads || a.payloads != b.payloads || a.count != b.count ||
        a.dropped != b.dropped || a.end_tag != b.end_tag) {
      ++differing;
      continue;
    }
    ended += a.end_tag == cutrace::kRowEndTag;
    for (uint32_t h : a.heads)
      records += h != 0;
  }
  const bool ok = differing == 0 && ended == staged.size() && records > 0;
  std::printf("%s: max_events %u, %d iterations: %zu rows, %u differing, %u ended, %u slots "
              "written: %s\n",
              what, M, n, staged.size(), differing, ended, records, ok ? "ok" : "FAIL");
  return ok;
}

} // namespace

int main() {
  bool ok = true;
  ok &= check<1000>("blocks, early return", 60, 17);
  ok &= check<37>("odd capacity, overflow", 40, 9);
  ok &= check<64>("capacity a block multiple, overflow", 40, 30);
  ok &= check<4096>("long rows", 500, 250);
  ok &= check<3>("capacity below a block", 20, 1);
  ok &= check<5>("capacity a block and a bit", 20, 2);
  ok &= check<63>("odd capacity, a block multiple when padded", 40, 12);
  std::printf("staging_check: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
