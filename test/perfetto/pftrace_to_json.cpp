// A Perfetto protobuf trace as JSON, for the shell checks (test/cli/check_completeness.sh):
//   pftrace_to_json TRACE.pftrace  ->  {"problems": [...], "tracks": [{uuid, parent, name,
//   rank}], "events": [{ts, type, track, name, args, flows_out, flows_in, source: {file,
//   line} when it has one}]}
// with interned names resolved (pftrace_read.h). Exit 1 when the file cannot be read.
#include "pftrace_read.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: pftrace_to_json TRACE.pftrace\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "pftrace_to_json: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  const pftrace_read::Trace t = pftrace_read::read(bytes.str());
  nlohmann::json out = {{"problems", t.problems},
                        {"tracks", nlohmann::json::array()},
                        {"events", nlohmann::json::array()}};
  for (const pftrace_read::Track &k : t.tracks) {
    nlohmann::json j = {{"uuid", k.uuid}, {"parent", k.parent}, {"name", k.name}};
    if (k.rank)
      j["rank"] = *k.rank;
    out["tracks"].push_back(j);
  }
  static const char *types[] = {"?", "B", "E", "i"};
  for (const pftrace_read::Event &e : t.events) {
    nlohmann::json args = nlohmann::json::object();
    for (const auto &[key, v] : e.args)
      std::visit([&, k = key](const auto &x) { args[k] = x; }, v);
    nlohmann::json event = {{"ts", e.ts},
                             {"type", types[int(e.type) & 3]},
                             {"track", e.track},
                             {"name", e.name},
                             {"args", args},
                             {"flows_out", e.flows_out},
                             {"flows_in", e.flows_in}};
    if (!e.source_file.empty())
      event["source"] = {{"file", e.source_file}, {"line", e.source_line}};
    out["events"].push_back(event);
  }
  std::cout << out.dump() << "\n";
  return 0;
}
