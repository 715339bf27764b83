// The HTML of a whole run (docs/viewer.md, "Whole runs"; cutrace/export.h export_run_html) on a
// run built by hand: two GPUs, two streams each, six launches of two kernels. The overview holds
// every launch; the size bound leaves detail out and says so; names stay inert.
#include <cutrace/decode.h>
#include <cutrace/export.h>
#include <cutrace/run_trace.h>

#include "support/buffer_builder.h"
#include "support/page_data.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

namespace cutrace {
namespace {

using nlohmann::json;
using test_support::BufferBuilder;
using test_support::column;
using test_support::count_ci;
using test_support::embedded_data;

constexpr auto B = RecordKind::begin, E = RecordKind::end;

DecodeMap kernel_map(const std::string &kernel) {
  Expected<DecodeMap> map =
      parse_decode_map(R"({"format_version":1,"kernel":)" + json(kernel).dump() +
                       R"(,"source":"loop.cu","max_events":16,"clock":"clock64",
 "groups":[{"index":0,"name":"block","lead":"0"}],"lanes":["main"],
 "sites":[{"id":0,"kind":"range","name":"step","lane":0,"group":0,"loc":"loop.cu:7:5"}],
 "flows":[]})");
  EXPECT_TRUE(map) << map.error;
  return *map;
}

// `ctas` CTAs of `steps` slices each, at 2 GHz.
Trace launch_trace(const DecodeMap &map, uint32_t ctas, uint32_t steps, uint64_t ns0) {
  BufferBuilder b(ctas, 1, 16);
  for (uint32_t c = 0; c < ctas; ++c) {
    const uint64_t cyc0 = 1'000'000 * (c + 1);
    b.start(c, 0, ns0 + c * 100, cyc0, c % 4);
    for (uint32_t s = 0; s < steps; ++s) {
      b.event(c, 0, B, 0, int32_t(s), cyc0 + 100 + s * 200);
      b.event(c, 0, E, 0, int32_t(s), cyc0 + 250 + s * 200);
    }
    b.end(c, 0, ns0 + c * 100 + 4000, cyc0 + 8000);
  }
  return decode(map, b.bytes.data(), b.bytes.size());
}

struct Expect {
  uint32_t device;
  uint64_t stream;
  uint32_t map;
  uint32_t ctas;
};

// Launch i: begins at 10 us * i, lasts 5 us; kernels alternate gemm / softmax; launches 0 and 3
// have no host enqueue time.
RunTrace synthetic_run(const std::string &gemm = "gemm", const std::string &gpu = "NVIDIA H200") {
  RunTrace run;
  RunProcess p;
  p.program = "loop";
  p.pid = 4242;
  p.rank = 0;
  p.complete = true;
  p.kernel_launches = {{gemm, {10, 3}}, {"softmax", {12, 3}}};
  run.processes.push_back(p);
  for (uint32_t d = 0; d < 2; ++d) {
    RunDevice dev;
    dev.index = d;
    dev.name = gpu;
    dev.aligned = d == 0;
    dev.alignment_error_ns = 1500;
    run.devices.push_back(dev);
  }
  run.maps = {kernel_map(gemm), kernel_map("softmax")};
  const Expect plan[6] = {{0, 0x10, 0, 2}, {0, 0x20, 1, 3}, {1, 0x10, 0, 4},
                          {1, 0x20, 1, 1}, {0, 0x10, 0, 2}, {1, 0x20, 1, 3}};
  for (uint32_t i = 0; i < 6; ++i) {
    RunLaunch l;
    l.device = plan[i].device;
    l.stream = plan[i].stream;
    l.map = plan[i].map;
    l.launch_index = i / 2;
    l.sequence = i;
    l.grid[0] = plan[i].ctas;
    l.block[0] = 64;
    l.in_graph = i == 5;
    l.begin_ns = 10'000.0 * i;
    l.end_ns = l.begin_ns + 5'000;
    if (i % 3)
      l.enqueue_ns = l.begin_ns - 700;
    l.trace = launch_trace(run.maps[l.map], plan[i].ctas, 2 + i, 1'000'000'000 + i * 10'000);
    run.launches.push_back(std::move(l));
  }
  return run;
}

size_t slices_of(const Trace &t) {
  size_t n = 0;
  for (const Row &r : t.rows)
    n += r.slices.size();
  return n;
}

std::set<size_t> launches_with_detail(const std::string &html, size_t launches) {
  std::set<size_t> with;
  for (size_t i = 0; i < launches; ++i)
    if (html.find(R"(id="cutrace-launch-)" + std::to_string(i) + "\"") != std::string::npos)
      with.insert(i);
  return with;
}

TEST(RunHtml, OverviewHoldsEveryLaunchOnItsStreamRow) {
  const RunTrace run = synthetic_run();
  const json data = json::parse(embedded_data(export_run_html(run)));
  ASSERT_EQ(data["L"]["n"], 6);
  const std::vector<double> b = column<double>(data, "L", "b_ns"),
                            e = column<double>(data, "L", "e_ns"),
                            q = column<double>(data, "L", "q_ns");
  const std::vector<int32_t> stream = column<int32_t>(data, "L", "stream"),
                             kernel = column<int32_t>(data, "L", "kernel"),
                             flags = column<int32_t>(data, "L", "flags");
  const std::vector<uint32_t> grid = column<uint32_t>(data, "L", "grid"),
                              index = column<uint32_t>(data, "L", "launch_index");
  ASSERT_EQ(b.size(), 6u);
  ASSERT_EQ(data["streams"].size(),
            4u); // (GPU 0, 0x10), (GPU 0, 0x20), (GPU 1, 0x10), (GPU 1, 0x20)
  EXPECT_EQ(data["streams"][2]["label"], "rank 0 \u00b7 GPU 1 (NVIDIA H200) \u00b7 stream 0x10");
  for (size_t i = 0; i < 6; ++i) {
    const RunLaunch &l = run.launches[i];
    EXPECT_EQ(b[i], l.begin_ns);
    EXPECT_EQ(e[i], l.end_ns);
    EXPECT_EQ(std::isnan(q[i]), !l.enqueue_ns) << i;
    if (l.enqueue_ns)
      EXPECT_EQ(q[i], *l.enqueue_ns);
    const json &row = data["streams"][size_t(stream[i])];
    EXPECT_EQ(row["device"], l.device);
    EXPECT_EQ(row["stream"], l.stream == 0x10 ? "0x10" : "0x20");
    EXPECT_EQ(data["kernels"][size_t(kernel[i])], run.maps[l.map].kernel);
    EXPECT_EQ(grid[3 * i], l.grid[0]);
    EXPECT_EQ(index[i], l.launch_index);
    EXPECT_EQ(flags[i] & 1, l.in_graph ? 1 : 0);
  }
  // Header material: recorded/skipped per kernel, alignment per GPU.
  EXPECT_EQ(data["kernel_counts"][0], json({3, 7})); // gemm: 3 of 10 recorded
  EXPECT_EQ(data["kernel_counts"][1], json({3, 9})); // softmax: 3 of 12
  EXPECT_EQ(data["devices"][0]["aligned"], true);
  EXPECT_EQ(data["devices"][0]["alignment_error_ns"], 1500);
  EXPECT_EQ(data["devices"][1]["aligned"], false);
}

TEST(RunHtml, EveryLaunchHasItsDetailWithinTheDefaultBound) {
  const RunTrace run = synthetic_run();
  const std::string html = export_run_html(run);
  const json data = json::parse(embedded_data(html));
  EXPECT_EQ(data["detail"]["count"], 6);
  EXPECT_EQ(data["detail"]["left_out"], 0);
  for (size_t i = 0; i < 6; ++i) {
    const json d = json::parse(embedded_data(html, "cutrace-launch-" + std::to_string(i)));
    const Trace &t = run.launches[i].trace;
    EXPECT_EQ(d["S"]["n"], slices_of(t)) << i;
    EXPECT_EQ(d["ctas"].size(), t.header.grid[0]) << i;
    EXPECT_EQ(d["kernel"], t.kernel);
    EXPECT_EQ(column<int32_t>(data, "L", "flags")[i] & 2, 0);
  }
  // Kernel-wide data is stored once per map, not per launch.
  EXPECT_EQ(data["maps"].size(), 2u);
  EXPECT_EQ(data["maps"][0]["sites"][0]["loc"], "loop.cu:7:5");
}

TEST(RunHtml, SizeBoundLeavesOutDetailAndSaysSo) {
  const RunTrace run = synthetic_run();
  RunHtmlOptions none;
  none.max_bytes = 1; // smaller than the overview: no detail at all, the overview stays
  const std::string bare = export_run_html(run, none);
  EXPECT_TRUE(launches_with_detail(bare, 6).empty());
  const json bare_data = json::parse(embedded_data(bare));
  EXPECT_EQ(bare_data["detail"]["left_out"], 6);
  EXPECT_EQ(bare_data["L"]["n"], 6);

  // Room for half the detail: the first launch of each kernel (0 and 1) gets it first.
  const std::string all = export_run_html(run);
  RunHtmlOptions half;
  half.max_bytes = bare.size() + (all.size() - bare.size()) / 2;
  const std::string html = export_run_html(run, half);
  EXPECT_LE(html.size(), half.max_bytes);
  const std::set<size_t> with = launches_with_detail(html, 6);
  EXPECT_TRUE(with.count(0) && with.count(1)) << with.size();
  EXPECT_LT(with.size(), 6u);
  const json data = json::parse(embedded_data(html));
  EXPECT_EQ(data["detail"]["count"], with.size());
  EXPECT_EQ(data["detail"]["left_out"], 6 - with.size());
  EXPECT_EQ(data["detail"]["max_bytes"], half.max_bytes);
  const std::vector<int32_t> flags = column<int32_t>(data, "L", "flags");
  for (size_t i = 0; i < 6; ++i)
    EXPECT_EQ((flags[i] & 2) != 0, !with.count(i)) << i;
  // What the page says for a launch without detail.
  EXPECT_NE(html.find("HTML size bound ("), std::string::npos);
  EXPECT_NE(html.find("render it with trace-view <its .ctrace> --launch"), std::string::npos);
}

TEST(RunHtml, PageNeverExceedsTheBoundOnceTheOverviewFits) {
  const RunTrace run = synthetic_run();
  RunHtmlOptions o;
  o.max_bytes = 1;
  // The overview alone, plus the digits of a larger bound.
  const size_t bare = export_run_html(run, o).size() + 16, all = export_run_html(run).size();
  size_t detail = 0;
  for (size_t bound = bare; bound <= 2 * all; bound += (all - bare) / 37 + 1) {
    o.max_bytes = bound;
    const std::string html = export_run_html(run, o);
    EXPECT_LE(html.size(), bound);
    detail = launches_with_detail(html, 6).size();
  }
  EXPECT_EQ(detail, 6u);
}

// A run read with a buffer budget keeps the extent of later launches but not their records.
TEST(RunHtml, LaunchReadWithoutRecordsIsInTheOverviewWithoutDetail) {
  RunTrace run = synthetic_run();
  run.launches[4].detail = false;
  run.launches[4].trace = Trace();
  const std::string html = export_run_html(run);
  const std::set<size_t> with = launches_with_detail(html, 6);
  EXPECT_EQ(with, (std::set<size_t>{0, 1, 2, 3, 5}));
  const json data = json::parse(embedded_data(html));
  EXPECT_EQ(data["L"]["n"], 6);
  EXPECT_EQ(column<double>(data, "L", "b_ns")[4], run.launches[4].begin_ns);
  EXPECT_EQ(column<int32_t>(data, "L", "flags")[4] & 6, 6); // no detail, records not read
  EXPECT_EQ(data["detail"]["left_out"], 1);
  EXPECT_EQ(data["detail"]["unread"], 1);
}

TEST(RunHtml, MaliciousNamesCannotCloseTheScriptElement) {
  const std::string evil = "g</script><script>alert(1)</script><!--";
  const RunTrace run = synthetic_run(evil, "GPU</title><b>x");
  const std::string html = export_run_html(run);
  const size_t elements = 1 + launches_with_detail(html, 6).size() + 1; // data, detail, viewer
  EXPECT_EQ(elements, 8u);
  EXPECT_EQ(count_ci(html, "<script"), elements);
  EXPECT_EQ(count_ci(html, "</script"), elements);
  EXPECT_EQ(html.find("<!--"), std::string::npos);
  EXPECT_EQ(html.find("<b>x"), std::string::npos);
  const json data = json::parse(embedded_data(html));
  EXPECT_EQ(data["kernels"][0], evil);
  EXPECT_EQ(data["devices"][0]["name"], "GPU</title><b>x");
  const json d0 = json::parse(embedded_data(html, "cutrace-launch-0"));
  EXPECT_EQ(d0["kernel"], evil);
}

TEST(RunHtml, SelfContainedWithoutNetwork) {
  const std::string html = export_run_html(synthetic_run());
  for (const char *needle : {"http://", "https://", "src=", "<link", "@import", "fetch("})
    EXPECT_EQ(html.find(needle), std::string::npos) << needle;
  EXPECT_NE(html.find("cutraceStats"), std::string::npos);
}

} // namespace
} // namespace cutrace
