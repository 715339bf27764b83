// Compressing a run's launch buffers (docs/PERFORMANCE.md section 5, "Compressed records"):
// zstd (levels 1 and 3, when built with CUTRACE_WITH_ZSTD) against the delta coding of
// CUTRACE_COMPRESS=delta (runtime/src/format/delta_coding.h: each little-endian u32 word minus the
// word `lag` words before it, zigzag, LEB128), on every launch of a run file. Prints the ratio and
// the single-thread speed of each, and checks that every coding decodes back to the same bytes. Not
// part of the runtime: it measures whether compressing would let the drain outrun the disk.
//   compress_records RUN.ctrace
#include <cutrace/run.h>

#include "../../runtime/src/format/delta_coding.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#ifdef CUTRACE_WITH_ZSTD
#include <zstd.h>
#endif

namespace {

using Bytes = std::vector<uint8_t>;

// The runtime's own coding (what CUTRACE_COMPRESS=delta writes), at any lag.
void delta_encode(const Bytes &in, Bytes &out, size_t lag) {
  out.clear();
  cutrace::format::delta_encode(in.data(), in.size(), uint32_t(lag), out);
}

void delta_decode(const Bytes &in, size_t size, Bytes &out, size_t lag) {
  if (!cutrace::format::delta_decode(in.data(), in.size(), size, uint32_t(lag), out))
    out.clear();
}

struct Coding {
  std::string name;
  std::function<void(const Bytes &, Bytes &)> encode;
  std::function<void(const Bytes &, size_t, Bytes &)> decode;
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: compress_records RUN.ctrace\n");
    return 2;
  }
  cutrace::Expected<cutrace::Run> run = cutrace::read_run_file(argv[1]);
  if (!run) {
    std::fprintf(stderr, "compress_records: %s\n", run.error.c_str());
    return 1;
  }
  std::vector<Coding> codings;
  for (size_t lag : {4u, 8u})
    codings.push_back(
        {"delta, lag " + std::to_string(lag) + " words",
         [lag](const Bytes &in, Bytes &out) { delta_encode(in, out, lag); },
         [lag](const Bytes &in, size_t n, Bytes &out) { delta_decode(in, n, out, lag); }});
#ifdef CUTRACE_WITH_ZSTD
  for (int level : {1, 3})
    codings.push_back({"zstd " + std::to_string(level),
                       [level](const Bytes &in, Bytes &out) {
                         out.resize(ZSTD_compressBound(in.size()));
                         out.resize(
                             ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level));
                       },
                       [](const Bytes &in, size_t n, Bytes &out) {
                         out.resize(n);
                         out.resize(ZSTD_decompress(out.data(), n, in.data(), in.size()));
                       }});
  codings.push_back(
      {"delta lag 8 + zstd 1",
       [](const Bytes &in, Bytes &out) {
         Bytes d;
         delta_encode(in, d, 8);
         out.resize(ZSTD_compressBound(d.size()) + 8);
         const uint64_t dn = d.size();
         std::memcpy(out.data(), &dn, 8);
         out.resize(8 + ZSTD_compress(out.data() + 8, out.size() - 8, d.data(), d.size(), 1));
       },
       [](const Bytes &in, size_t n, Bytes &out) {
         uint64_t dn = 0;
         std::memcpy(&dn, in.data(), 8);
         Bytes d(dn);
         d.resize(ZSTD_decompress(d.data(), dn, in.data() + 8, in.size() - 8));
         delta_decode(d, n, out, 8);
       }});
#endif
  uint64_t raw = 0;
  for (const cutrace::LaunchRecord &l : run->launches)
    raw += l.buffer.size();
  std::printf("%zu launches, %.1f MB of launch buffers\n\n", run->launches.size(), raw / 1e6);
  std::printf("| coding | compressed MB | ratio | compress MB/s (1 thread) | decompress MB/s | "
              "round trip |\n|---|---|---|---|---|---|\n");
  for (const Coding &c : codings) {
    Bytes packed, back;
    uint64_t packed_total = 0;
    double enc_s = 0, dec_s = 0;
    bool same = true;
    for (const cutrace::LaunchRecord &l : run->launches) {
      auto t = std::chrono::steady_clock::now();
      c.encode(l.buffer, packed);
      enc_s += seconds_since(t);
      t = std::chrono::steady_clock::now();
      c.decode(packed, l.buffer.size(), back);
      dec_s += seconds_since(t);
      packed_total += packed.size();
      same = same && back == l.buffer;
    }
    std::printf("| %s | %.1f | %.2fx | %.0f | %.0f | %s |\n", c.name.c_str(), packed_total / 1e6,
                double(raw) / double(packed_total), raw / 1e6 / enc_s, raw / 1e6 / dec_s,
                same ? "identical" : "DIFFERS");
  }
  return 0;
}
