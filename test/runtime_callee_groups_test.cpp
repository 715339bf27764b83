// Groups declared on a kernel's call path (docs/annotations.md, "Groups on the call path"): the
// decoder names the rows from the map trace-rewrite writes, which lists the groups a callee
// declares as the kernel's. The map is the reviewed golden of test/inputs/traced/
// groups_in_callee.cu (a __global__ body without annotations calling a function that declares
// TRACE_GROUP("producer", 0) and TRACE_GROUPS("consumer", 128, 128)); the buffer is laid out
// as cutrace/device.h writes it for 384-thread CTAs.
#include <cutrace/decode.h>

#include "support/buffer_builder.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include "support/tree_paths.h"

namespace cutrace {
namespace {

using test_support::Buffer8Builder;

/// The JSON a generated map header embeds (`R"cutrace_json(...)cutrace_json"`).
std::string embeddedMapJson(const std::string &Header) {
  std::ifstream In(std::string(CUTRACE_TEST_INPUTS) + "/traced/" + Header, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  const std::string Text = S.str(), Open = "R\"cutrace_json(", Close = ")cutrace_json\"";
  const size_t Begin = Text.find(Open), End = Text.find(Close);
  if (Begin == std::string::npos || End == std::string::npos)
    return "";
  return Text.substr(Begin + Open.size(), End - Begin - Open.size());
}

TEST(CalleeGroups, RowsOfGroupsDeclaredInACalleeAreNamedFromTheKernelsMap) {
  Expected<DecodeMap> Map = parse_decode_map(embeddedMapJson("groups_in_callee.trace_map.h"));
  ASSERT_TRUE(Map) << Map.error;
  ASSERT_EQ(Map->groups.size(), 2u); // no block row: the kernel records only through its callee
  EXPECT_EQ(Map->groups[0].name, "producer");
  EXPECT_EQ(Map->groups[1].name, "consumer");
  EXPECT_EQ(Map->groups[1].slice_threads, 128u);
  EXPECT_EQ(Map->groups[1].first_thread, 128u);

  // Sites 0 tma_issue (load(), called by the producer), 1 mma (mma(), called by consumers).
  const uint32_t Ctas = 2, RowsPerCta = 3; // producer + 2 consumer warp groups of 384 threads
  Buffer8Builder B(Ctas, RowsPerCta, 1024, Clock::clock64, 384); // the map's capacity
  for (uint32_t C = 0; C < Ctas; ++C) {
    for (uint32_t R = 0; R < RowsPerCta; ++R)
      B.start(C, R, 1000, 5000);
    for (int K = 0; K < 4; ++K) {
      B.event(C, 0, RecordKind::instant, 0, K, 5100 + 100 * K);
      for (uint32_t R = 1; R < RowsPerCta; ++R)
        B.range(C, R, 1, K, 5150 + 100 * K, 5190 + 100 * K);
    }
    for (uint32_t R = 0; R < RowsPerCta; ++R)
      B.end(C, R, 2000, 6000);
  }
  const Trace T = decode(*Map, B.bytes.data(), B.bytes.size());
  ASSERT_TRUE(T.ok()) << (T.problems.empty() ? "" : T.problems.front());
  ASSERT_EQ(T.rows.size(), Ctas * RowsPerCta);
  for (uint32_t C = 0; C < Ctas; ++C) {
    const Row &Producer = T.rows[C * RowsPerCta];
    EXPECT_EQ(Producer.label, "producer");
    ASSERT_EQ(Producer.instants.size(), 4u);
    EXPECT_EQ(Producer.instants[3].name, "tma_issue");
    EXPECT_EQ(Producer.instants[3].payload, 3);
    for (uint32_t R = 1; R < RowsPerCta; ++R) {
      const Row &Consumer = T.rows[C * RowsPerCta + R];
      EXPECT_EQ(Consumer.group, 1u);
      EXPECT_EQ(Consumer.label,
                "consumer[wg" + std::to_string(R) + "]"); // threads 128R to 128R + 127
      ASSERT_EQ(Consumer.slices.size(), 4u);
      EXPECT_EQ(Consumer.slices[0].name, "mma");
    }
  }
}

// Groups declared together (docs/annotations.md, "TRACE_GROUP"): test/inputs/traced/
// arch_guarded_operator_groups.cu declares TRACE_GROUP("producer", 0) and TRACE_GROUPS("consumer",
// 128, 128) at one point of operator(); the producer warp calls load(), the consumer warpgroups
// mma(), and each thread records into the group whose row it writes (cutrace::WriterOf). The
// buffer is what that code writes for 384-thread CTAs: load's ranges in the producer row (thread
// 0), mma's in each consumer slice's row (threads 128 and 256). Every event must land in a row
// whose group the map lists for its site, and no row of the three may be left empty.
TEST(CalleeGroups, GroupsDeclaredTogetherPutEachSitesEventsInTheRowOfTheThreadThatWritesThem) {
  const std::string Json = embeddedMapJson("arch_guarded_operator_groups.trace_map.h");
  Expected<DecodeMap> Map = parse_decode_map(Json);
  ASSERT_TRUE(Map) << Map.error;
  ASSERT_EQ(Map->groups.size(), 2u);
  EXPECT_EQ(Map->groups[0].name, "producer");
  EXPECT_EQ(Map->groups[1].name, "consumer");
  // The groups each site may record into, as the map lists them (`groups`, else `group`).
  std::map<std::string, std::set<uint32_t>> GroupsOfSite;
  const nlohmann::json Parsed = nlohmann::json::parse(Json);
  for (const nlohmann::json &S : Parsed["sites"]) {
    std::set<uint32_t> &G = GroupsOfSite[S["name"]];
    G.insert(S["group"].get<uint32_t>());
    for (const nlohmann::json &X : S.value("groups", nlohmann::json::array()))
      G.insert(X.get<uint32_t>());
  }
  EXPECT_EQ(GroupsOfSite["load"], (std::set<uint32_t>{0, 1}));
  EXPECT_EQ(GroupsOfSite["mma"], (std::set<uint32_t>{0, 1}));

  const uint32_t Ctas = 2, RowsPerCta = 3, Load = 0, Mma = 1;
  Buffer8Builder B(Ctas, RowsPerCta, 1024, Clock::clock64, 384);
  for (uint32_t C = 0; C < Ctas; ++C) {
    for (uint32_t R = 0; R < RowsPerCta; ++R)
      B.start(C, R, 1000, 5000);
    for (int K = 0; K < 8; ++K) {
      B.range(C, 0, Load, K, 5100 + 100 * K, 5140 + 100 * K);
      for (uint32_t R = 1; R < RowsPerCta; ++R)
        B.range(C, R, Mma, K, 5150 + 100 * K, 5190 + 100 * K);
    }
    for (uint32_t R = 0; R < RowsPerCta; ++R)
      B.end(C, R, 2000, 6000);
  }
  const Trace T = decode(*Map, B.bytes.data(), B.bytes.size());
  ASSERT_TRUE(T.ok()) << (T.problems.empty() ? "" : T.problems.front());
  ASSERT_EQ(T.rows.size(), Ctas * RowsPerCta);
  for (const Row &R : T.rows) {
    ASSERT_EQ(R.slices.size(), 8u) << R.label << " holds no events";
    for (const Slice &S : R.slices)
      EXPECT_TRUE(GroupsOfSite[S.name].count(R.group))
          << S.name << " recorded into " << R.label << ", a group its site does not list";
    EXPECT_EQ(R.slices[0].name, R.group == 0 ? "load" : "mma") << R.label;
  }
  EXPECT_EQ(T.rows[0].label, "producer");
  EXPECT_EQ(T.rows[1].label, "consumer[wg1]");
  EXPECT_EQ(T.rows[2].label, "consumer[wg2]");
}

} // namespace
} // namespace cutrace
