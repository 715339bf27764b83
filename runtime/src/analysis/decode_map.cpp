// Parsing the per-kernel decode map JSON (docs/FORMAT.md, "Decode map").
#include <cutrace/decode.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>

namespace cutrace {

const Site *DecodeMap::site(uint32_t id) const {
  // Sites are normally numbered 0..n-1 in order; fall back to a search if not.
  if (id < sites.size() && sites[id].id == id)
    return &sites[id];
  for (const Site &s : sites)
    if (s.id == id)
      return &s;
  return nullptr;
}

bool DecodeMap::any_sliced() const {
  for (const GroupInfo &g : groups)
    if (g.sliced())
      return true;
  return false;
}

namespace {

std::optional<SiteKind> site_kind(const std::string &kind) {
  if (kind == "range")
    return SiteKind::range;
  if (kind == "range_start")
    return SiteKind::range_start;
  if (kind == "record")
    return SiteKind::record;
  return std::nullopt;
}

std::optional<Clock> clock_kind(const std::string &clock) {
  if (clock == "clock64")
    return Clock::clock64;
  if (clock == "globaltimer")
    return Clock::globaltimer;
  return std::nullopt;
}

struct BadField : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// get<uint32_t>() would convert any number: -1 or 2^32+1 silently wrapped, and a float out of
// range (1e22) is undefined behaviour. Counts, ids and indices are integers in [0, 2^32).
uint32_t u32_at(const nlohmann::json &j, const char *key) {
  const nlohmann::json &v = j.at(key);
  if (!v.is_number_unsigned() || v.get<uint64_t>() > UINT32_MAX)
    throw BadField(std::string("'") + key + "' must be an integer from 0 to 4294967295, not " +
                   v.dump(-1, ' ', /*ensure_ascii=*/true));
  return uint32_t(v.get<uint64_t>());
}

// The TRACE_GROUPS keys (docs/FORMAT.md, "Rows of a CTA"): both or neither; what the
// annotation allows (multiples of 32, size 32..1024, first below 1024). The reason when not.
std::optional<std::string> read_slices(const nlohmann::json &g, GroupInfo &group) {
  const bool size = g.contains("slice_threads"), first = g.contains("first_thread");
  if (!size && !first)
    return std::nullopt;
  if (!size || !first)
    return std::string("slice_threads and first_thread come together");
  group.slice_threads = u32_at(g, "slice_threads");
  group.first_thread = u32_at(g, "first_thread");
  if (group.slice_threads % 32 || group.slice_threads < 32 || group.slice_threads > 1024)
    return "slice_threads " + std::to_string(group.slice_threads) +
           " is not a multiple of 32 from 32 to 1024";
  if (group.first_thread % 32 || group.first_thread >= 1024)
    return "first_thread " + std::to_string(group.first_thread) +
           " is not a multiple of 32 below 1024";
  return std::nullopt;
}

// Throws nlohmann::json::exception on missing fields or wrong types and BadField on values out of
// range; the caller turns either into an error value.
Expected<DecodeMap> from_json(const nlohmann::json &j) {
  using E = Expected<DecodeMap>;
  DecodeMap map;
  map.format_version = u32_at(j, "format_version");
  if (map.format_version != kFormatVersion)
    return E::failure("decode map format_version " + std::to_string(map.format_version) +
                      " is not supported (expected " + std::to_string(kFormatVersion) + ")");
  map.kernel = j.at("kernel").get<std::string>();
  map.source = j.value("source", "");
  map.max_events = u32_at(j, "max_events");
  std::optional<Clock> clock = clock_kind(j.at("clock").get<std::string>());
  if (!clock)
    return E::failure("decode map: unknown clock '" + j.at("clock").get<std::string>() + "'");
  map.clock = *clock;
  for (const auto &g : j.at("groups")) {
    GroupInfo group{u32_at(g, "index"), g.at("name").get<std::string>(), g.value("lead", "")};
    if (std::optional<std::string> bad = read_slices(g, group))
      return E::failure("decode map: group " + std::to_string(group.index) + " '" + group.name +
                        "': " + *bad);
    map.groups.push_back(std::move(group));
  }
  for (const auto &l : j.at("lanes"))
    map.lanes.push_back(l.get<std::string>());
  for (const auto &s : j.at("sites")) {
    Site site;
    site.id = u32_at(s, "id");
    std::optional<SiteKind> kind = site_kind(s.at("kind").get<std::string>());
    if (!kind)
      return E::failure("decode map: site " + std::to_string(site.id) + " has unknown kind '" +
                        s.at("kind").get<std::string>() + "'");
    site.kind = *kind;
    site.name = s.at("name").get<std::string>();
    site.lane = u32_at(s, "lane");
    site.group = u32_at(s, "group");
    site.loc = s.value("loc", "");
    if (site.id > kSiteMask)
      return E::failure("decode map: site id " + std::to_string(site.id) + " exceeds 16 bits");
    if (site.lane >= map.lanes.size())
      return E::failure("decode map: site " + std::to_string(site.id) + " names lane " +
                        std::to_string(site.lane) + " of " + std::to_string(map.lanes.size()));
    map.sites.push_back(std::move(site));
  }
  if (j.contains("flows"))
    for (const auto &f : j.at("flows"))
      map.flows.push_back({f.at("src").get<std::string>(), f.at("dst").get<std::string>()});
  return E{std::move(map), {}};
}

} // namespace

Expected<DecodeMap> parse_decode_map(const std::string &json) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return Expected<DecodeMap>::failure("decode map is not valid JSON");
  try {
    return from_json(j);
  } catch (const nlohmann::json::exception &e) {
    return Expected<DecodeMap>::failure(std::string("decode map: ") + e.what());
  } catch (const BadField &e) {
    return Expected<DecodeMap>::failure(std::string("decode map: ") + e.what());
  }
}

} // namespace cutrace
