// A synthetic whole run for the run-overview check: a loop of three kernels (matmul, layernorm,
// softmax) on two GPUs, two streams each, recorded as a version 2 run file the way the capture
// session writes it (RUN, DEV, MAP, LNCH..., END), decoded with decode_run and rendered with
// export_run_html.
//   gen_run OUT [--iterations N] [--steps S] [--max-mb M] [--ctrace-only]
// writes OUT.ctrace and OUT.html (with --ctrace-only the run file alone); with --from RUN.ctrace it
// renders that run file instead. Both print what the decoder has, for the page to match:
//   launches N / detail D / left_out L / html_bytes B
//   launch I kernel K ctas C slices S instants I0 cta1_slices S1 cta1_instants I1 detail 0|1
// Deterministic: the same arguments give the same bytes.
#include "../support/buffer_builder.h"

#include <cutrace/ctrace.h>
#include <cutrace/export.h>
#include <cutrace/run.h>
#include <cutrace/run_trace.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace {

using cutrace::RecordKind;
constexpr auto B = RecordKind::begin, E = RecordKind::end, I = RecordKind::instant;
constexpr double kGhz = 1.98;
constexpr uint64_t kHostStartNs = 1'760'000'000'000'000'000ull; // CLOCK_REALTIME, ns
const int64_t kHostMinusGpuNs[2] = {12'345, -56'789};

struct Kernel {
  const char *name;
  uint32_t ctas, groups;
  uint64_t ns; // duration of one launch
};
const Kernel kKernels[3] = {
    {"matmul", 16, 2, 20'000}, {"layernorm", 8, 1, 6'000}, {"softmax", 4, 1, 9'000}};

std::string map_json(const Kernel &k, uint32_t max_events) {
  std::string groups, sites;
  for (uint32_t g = 0; g < k.groups; ++g) {
    const std::string gs = std::to_string(g), base = std::to_string(2 * g);
    groups += std::string(g ? "," : "") + R"({"index":)" + gs + R"(,"name":")" +
              (g ? "consumer" : "producer") + R"(","lead":")" + std::to_string(32 * g) + R"("})";
    sites += std::string(g ? "," : "") + R"({"id":)" + base +
             R"(,"kind":"range","name":"tile","lane":0,"group":)" + gs +
             R"(,"loc":"loop.cu:20:5"},{"id":)" + std::to_string(2 * g + 1) +
             R"(,"kind":"record","name":"tick","lane":0,"group":)" + gs +
             R"(,"loc":"loop.cu:22:5"})";
  }
  return R"({"format_version":1,"kernel":")" + std::string(k.name) +
         R"(","source":"examples/loop/loop.cu","max_events":)" + std::to_string(max_events) +
         R"(,"clock":"clock64","groups":[)" + groups + R"(],"lanes":["main"],"sites":[)" + sites +
         R"(],"flows":[]})";
}

// One launch beginning at `gpu_ns` (globaltimer): per row `steps` tiles with a tick inside each.
std::vector<uint8_t> launch_buffer(const Kernel &k, uint32_t steps, uint64_t gpu_ns) {
  cutrace::test_support::BufferBuilder b(k.ctas, k.groups, 2 * steps + steps,
                                         cutrace::Clock::clock64, 128);
  for (uint32_t c = 0; c < k.ctas; ++c) {
    const uint32_t sm = (c * 7) % 132;
    const uint64_t ns0 = gpu_ns + c * 40, span = k.ns - c * 40 - 100;
    const uint64_t cyc0 = 1'000'000ull * (sm + 1) + uint64_t(double(ns0 % 1'000'000'000) * kGhz);
    const uint64_t step = uint64_t(double(span) * kGhz) / (steps + 1);
    for (uint32_t g = 0; g < k.groups; ++g) {
      b.start(c, g, ns0, cyc0, sm);
      for (uint32_t s = 0; s < steps; ++s) {
        const uint64_t t = cyc0 + 10 + s * step;
        b.event(c, g, B, 2 * g, int32_t(s), t);
        b.event(c, g, I, 2 * g + 1, int32_t(s), t + step / 3);
        b.event(c, g, E, 2 * g, int32_t(s), t + step * 2 / 3);
      }
      b.end(c, g, ns0 + span, cyc0 + uint64_t(double(span) * kGhz));
    }
  }
  return std::move(b.bytes);
}

cutrace::Run synthetic_run(uint32_t iterations, uint32_t steps) {
  cutrace::Run run;
  run.run_json =
      R"({"program":"loop","pid":4242,"host":"h200-node","rank":0,"launches":"all","kernels":""})";
  for (uint32_t d = 0; d < 2; ++d)
    run.devices.push_back(R"({"index":)" + std::to_string(d) +
                          R"(,"name":"NVIDIA H200","clock_khz":1980000,"sms":132,"aligned":true,)"
                          R"("host_minus_gpu_ns":)" +
                          std::to_string(kHostMinusGpuNs[d]) + R"(,"alignment_error_ns":)" +
                          std::to_string(1800 + 700 * d) + "}");
  for (const Kernel &k : kKernels)
    run.maps.push_back(map_json(k, 3 * steps));
  uint64_t sequence = 0;
  for (uint32_t it = 0; it < iterations; ++it)
    for (uint32_t d = 0; d < 2; ++d) {
      // matmul then layernorm on the main stream, softmax on a side stream beside layernorm.
      const uint64_t host = kHostStartNs + it * 60'000 + d * 3'000;
      const uint64_t begin[3] = {host + 2'000, host + 23'000, host + 24'000};
      const uint64_t stream[3] = {0x7f00a000 + d * 0x1000, 0x7f00a000 + d * 0x1000,
                                  0x7f10a000 + d * 0x1000};
      for (uint32_t k = 0; k < 3; ++k) {
        cutrace::LaunchRecord l;
        l.map = k;
        l.device = d;
        l.stream = stream[k];
        l.launch_index = 2 * (2 * it + d); // every other launch recorded
        l.grid[0] = kKernels[k].ctas;
        l.block[0] = 128 * kKernels[k].groups;
        l.host_enqueue_ns = begin[k] - 1'500 - 300 * k;
        l.sequence = sequence++;
        l.buffer =
            launch_buffer(kKernels[k], steps, uint64_t(int64_t(begin[k]) - kHostMinusGpuNs[d]));
        run.launches.push_back(std::move(l));
      }
    }
  const std::string n = std::to_string(2 * iterations), seen = std::to_string(4 * iterations);
  run.end_json = R"({"kernels":[{"kernel":"matmul","launches":)" + seen + R"(,"recorded":)" + n +
                 R"(},{"kernel":"layernorm","launches":)" + seen + R"(,"recorded":)" + n +
                 R"(},{"kernel":"softmax","launches":)" + seen + R"(,"recorded":)" + n + "}]}";
  return run;
}

[[noreturn]] void usage() {
  std::fputs("usage: gen_run OUT [--iterations N] [--steps S] [--max-mb M] [--from RUN.ctrace] "
             "[--ctrace-only]\n",
             stderr);
  std::exit(2);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    usage();
  const std::string out = argv[1];
  uint32_t iterations = 50, steps = 8;
  cutrace::RunHtmlOptions options;
  std::string from;
  bool ctrace_only = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--ctrace-only") {
      ctrace_only = true;
      continue;
    }
    if (i + 1 >= argc)
      usage();
    if (a == "--iterations")
      iterations = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (a == "--steps")
      steps = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (a == "--max-mb")
      options.max_bytes = uint64_t(std::strtod(argv[++i], nullptr) * 1048576);
    else if (a == "--from")
      from = argv[++i];
    else
      usage();
  }
  if (iterations == 0 || steps == 0)
    usage();
  std::vector<uint8_t> file;
  if (from.empty()) {
    file = cutrace::encode_run(synthetic_run(iterations, steps));
    if (auto err =
            cutrace::write_file_atomic(out + ".ctrace", std::string(file.begin(), file.end()))) {
      std::fprintf(stderr, "gen_run: %s\n", err->c_str());
      return 1;
    }
  }
  if (ctrace_only) { // what the decoder has is not needed: the first line only
    std::printf("launches %u\n", 6 * iterations);
    return 0;
  }
  auto t0 = std::chrono::steady_clock::now();
  cutrace::Expected<cutrace::Run> parsed =
      from.empty() ? cutrace::parse_run(file.data(), file.size()) : cutrace::read_run_file(from);
  if (!parsed) {
    std::fprintf(stderr, "gen_run: %s\n", parsed.error.c_str());
    return 1;
  }
  cutrace::Expected<cutrace::RunTrace> run =
      cutrace::decode_run(*parsed, from.empty() ? out + ".ctrace" : from);
  if (!run) {
    std::fprintf(stderr, "gen_run: %s\n", run.error.c_str());
    return 1;
  }
  const double decode_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  const std::string html = cutrace::export_run_html(*run, options);
  const double export_ms = ms_since(t0);
  if (auto err = cutrace::write_file_atomic(out + ".html", html)) {
    std::fprintf(stderr, "gen_run: %s\n", err->c_str());
    return 1;
  }
  size_t detail = 0;
  std::string lines;
  for (size_t i = 0; i < run->launches.size(); ++i) {
    const cutrace::RunLaunch &l = run->launches[i];
    const bool has =
        html.find("id=\"cutrace-launch-" + std::to_string(i) + "\"") != std::string::npos;
    detail += has;
    size_t slices = 0, instants = 0, cta1_slices = 0, cta1_instants = 0;
    std::set<uint32_t> ctas; // that ran: a row started or holds events
    for (const cutrace::Row &r : l.trace.rows) {
      if (r.started || !r.slices.empty() || !r.instants.empty())
        ctas.insert(r.cta);
      slices += r.slices.size();
      instants += r.instants.size();
      if (r.cta == 1)
        cta1_slices += r.slices.size(), cta1_instants += r.instants.size();
    }
    lines += "launch " + std::to_string(i) + " kernel " + l.trace.kernel + " ctas " +
             std::to_string(ctas.size()) + " slices " + std::to_string(slices) + " instants " +
             std::to_string(instants) + " cta1_slices " + std::to_string(cta1_slices) +
             " cta1_instants " + std::to_string(cta1_instants) + " detail " + (has ? "1" : "0") +
             "\n";
  }
  std::printf("launches %zu\ndetail %zu\nleft_out %zu\nhtml_bytes %zu\nctrace_bytes %zu\n"
              "decode_ms %.1f\nexport_ms %.1f\nproblems %zu\n%s",
              run->launches.size(), detail, run->launches.size() - detail, html.size(), file.size(),
              decode_ms, export_ms, run->problems.size(), lines.c_str());
  return 0;
}
