// The launch selection (docs/launches.md): which launch indices CUTRACE_LAUNCHES selects, which
// kernels CUTRACE_KERNELS selects, the legacy CUTRACE_MAX_LAUNCHES, and a clear message for every
// kind of mistake. Pure C++: no GPU, no CUDA calls.
#include "capture/launch_selection.h"

#include <gtest/gtest.h>

#include <fnmatch.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include "support/tree_paths.h"

namespace cutrace {
namespace {

LaunchSelection parsed(std::string_view launches, std::string_view kernels = "") {
  Expected<LaunchSelection> selection = parse_launch_selection(launches, kernels);
  EXPECT_TRUE(selection) << selection.error;
  return selection ? *selection : LaunchSelection{};
}

// The indices in 0..limit that `launches` selects.
std::vector<uint64_t> selected(std::string_view launches, uint64_t limit = 40) {
  const LaunchSelection selection = parsed(launches);
  std::vector<uint64_t> out;
  for (uint64_t i = 0; i <= limit; ++i)
    if (selection.selects("k", i))
      out.push_back(i);
  return out;
}

using Indices = std::vector<uint64_t>;

TEST(LaunchSelection, FirstNSelectsIndicesBelowN) {
  EXPECT_EQ(selected("first:3"), (Indices{0, 1, 2}));
  EXPECT_EQ(selected("first:1"), (Indices{0}));
}

TEST(LaunchSelection, FirstZeroSelectsNothing) {
  EXPECT_EQ(selected("first:0"), Indices{});
  EXPECT_EQ(selected("none"), Indices{});
}

TEST(LaunchSelection, EveryKStartsAtIndexZero) {
  EXPECT_EQ(selected("every:10"), (Indices{0, 10, 20, 30, 40}));
  EXPECT_EQ(selected("every:1", 3), (Indices{0, 1, 2, 3}));
}

TEST(LaunchSelection, EveryKWithOffset) {
  EXPECT_EQ(selected("every:10@3"), (Indices{3, 13, 23, 33}));
  // An offset past the step starts there: nothing below it.
  EXPECT_EQ(selected("every:10@25"), (Indices{25, 35}));
  EXPECT_EQ(selected("every:10@0"), selected("every:10"));
}

TEST(LaunchSelection, RangeIsInclusive) {
  EXPECT_EQ(selected("5-8"), (Indices{5, 6, 7, 8}));
  EXPECT_EQ(selected("7-7"), (Indices{7}));
}

TEST(LaunchSelection, OpenRangeSelectsFromAOn) {
  EXPECT_EQ(selected("38-"), (Indices{38, 39, 40}));
  EXPECT_TRUE(parsed("38-").selects("k", UINT64_MAX));
}

TEST(LaunchSelection, NumberSelectsThatIndexOnly) { EXPECT_EQ(selected("12"), (Indices{12})); }

TEST(LaunchSelection, AllSelectsEveryIndex) {
  const LaunchSelection all = parsed("all");
  for (uint64_t i : {uint64_t(0), uint64_t(1), uint64_t(1) << 40, UINT64_MAX})
    EXPECT_TRUE(all.selects("k", i)) << i;
}

TEST(LaunchSelection, UnionOfItems) {
  EXPECT_EQ(selected("first:2,every:10@5,20-21,40"), (Indices{0, 1, 5, 15, 20, 21, 25, 35, 40}));
  EXPECT_EQ(selected("none,3"), (Indices{3}));
  EXPECT_EQ(selected("first:2,first:2"), (Indices{0, 1}));
}

// Indices are 64-bit: a long run keeps its sample going past the largest number one can write.
TEST(LaunchSelection, IndicesPastTheLargestNumberStillFollowTheItems) {
  const LaunchSelection every = parsed("every:4294967295");
  EXPECT_TRUE(every.selects("k", 2 * uint64_t(UINT32_MAX)));
  EXPECT_FALSE(every.selects("k", 2 * uint64_t(UINT32_MAX) + 1));
  EXPECT_FALSE(parsed("first:4294967295").selects("k", UINT32_MAX));
  EXPECT_TRUE(parsed("first:4294967295").selects("k", UINT32_MAX - 1));
}

TEST(LaunchSelection, DefaultIsFirstFourThenEvery250th) {
  EXPECT_STREQ(kDefaultLaunches, "first:4,every:250");
  EXPECT_EQ(selected(kDefaultLaunches, 1000), (Indices{0, 1, 2, 3, 250, 500, 750, 1000}));
}

TEST(LaunchSelection, WhitespaceAroundItemsIsAllowed) {
  EXPECT_EQ(selected(" first:2 ,\tevery:20@1\n"), (Indices{0, 1, 21}));
  const LaunchSelection kernels = parsed("all", "  gemm , -  *_bwd ");
  EXPECT_EQ(kernels.kernels_text, "gemm,-*_bwd");
}

TEST(LaunchSelection, TextIsNormalized) {
  EXPECT_EQ(parsed(" first:04 , every:250@0, every:7@2 ,3-,5-9,  007,all,none").launches_text,
            "first:4,every:250,every:7@2,3-,5-9,7,all,none");
  EXPECT_EQ(parsed("all").kernels_text, "*");
  EXPECT_EQ(parsed("all", "-a*").kernels_text, "-a*");
}

TEST(LaunchSelection, UnsetKernelsSelectsEveryKernel) {
  const LaunchSelection selection = parsed("all", "");
  EXPECT_TRUE(selection.selects("gemm", 0));
  EXPECT_TRUE(selection.selects("(anonymous namespace)::k", 0));
}

TEST(LaunchSelection, KernelPatternMatchesTheWholeName) {
  const LaunchSelection selection = parsed("all", "gemm");
  EXPECT_TRUE(selection.selects("gemm", 0));
  EXPECT_FALSE(selection.selects("gemm_bias", 0));
  EXPECT_FALSE(selection.selects("my_gemm", 0));
  EXPECT_FALSE(selection.selects("nn::gemm", 0));
}

TEST(LaunchSelection, GlobWildcardsAndSets) {
  EXPECT_TRUE(glob_matches("*gemm*", "nn::sgemm_tn"));
  EXPECT_TRUE(glob_matches("layer?norm", "layer_norm"));
  EXPECT_FALSE(glob_matches("layer?norm", "layernorm"));
  EXPECT_TRUE(glob_matches("softmax_[fb]wd", "softmax_bwd"));
  EXPECT_FALSE(glob_matches("softmax_[fb]wd", "softmax_xwd"));
  EXPECT_TRUE(glob_matches("k[0-9]", "k7"));
  EXPECT_FALSE(glob_matches("k[!0-9]", "k7"));
  EXPECT_TRUE(glob_matches("k[^0-9]", "kx"));
  // After a range, a `-` is a character of the set again ("[a-c-e]" is a..c, '-' and 'e').
  EXPECT_TRUE(glob_matches("[a-c-e]", "-"));
  EXPECT_FALSE(glob_matches("[a-c-e]", "d"));
  EXPECT_TRUE(glob_matches("*", ""));
  EXPECT_FALSE(glob_matches("?", ""));
}

TEST(LaunchSelection, KernelSelectionAppliesToEveryIndex) {
  const LaunchSelection selection = parsed("first:2", "attn*");
  EXPECT_TRUE(selection.selects("attn_fwd", 1));
  EXPECT_FALSE(selection.selects("attn_fwd", 2));
  EXPECT_FALSE(selection.selects("matmul", 0));
}

TEST(LaunchSelection, OnlyExclusionsSelectEveryOtherKernel) {
  const LaunchSelection selection = parsed("all", "-*_bwd");
  EXPECT_TRUE(selection.selects("matmul", 0));
  EXPECT_FALSE(selection.selects("softmax_bwd", 0));
}

TEST(LaunchSelection, ExclusionWinsOverInclusion) {
  // Order does not matter: an excluded name is never recorded.
  for (const char *kernels : {"softmax*,-*_bwd", "-*_bwd,softmax*"}) {
    const LaunchSelection selection = parsed("all", kernels);
    EXPECT_TRUE(selection.selects("softmax_fwd", 0)) << kernels;
    EXPECT_FALSE(selection.selects("softmax_bwd", 0)) << kernels;
    EXPECT_FALSE(selection.selects("matmul", 0)) << kernels;
  }
}

// The "kernel" of a decode map as trace-rewrite writes it in a golden map header.
std::string map_kernel_name(const std::string &golden) {
  std::ifstream in(std::string(CUTRACE_TEST_DATA) + "/../inputs/traced/" + golden);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str(), key = "\"kernel\":\"";
  const size_t at = all.find(key);
  EXPECT_NE(at, std::string::npos) << golden;
  if (at == std::string::npos)
    return {};
  const size_t start = at + key.size();
  EXPECT_EQ(all.find(key, start), std::string::npos) << golden << ": one decode map expected";
  return all.substr(start, all.find('"', start) - start);
}

// template_kernel.cu launches fill<float, 128> and fill<double, 256>; the rewriter writes one map
// whose kernel is the template's name, so one pattern (and one launch count) covers both.
TEST(LaunchSelection, TemplateNameMatchesEveryInstance) {
  const std::string name = map_kernel_name("template_kernel.trace_map.h");
  EXPECT_EQ(name, "fill");
  EXPECT_TRUE(parsed("all", "fill").selects(name, 0));
  EXPECT_FALSE(parsed("all", "-fill").selects(name, 0));
  // Template arguments are never part of the name, so a pattern naming them matches nothing.
  EXPECT_FALSE(parsed("all", "fill<float*").selects(name, 0));
}

// Kernels in a namespace are named as qualified ("nn::gemm"): a bare name needs "*".
TEST(LaunchSelection, QualifiedNamesNeedTheirNamespace) {
  EXPECT_FALSE(parsed("all", "gemm").selects("nn::gemm", 0));
  EXPECT_TRUE(parsed("all", "nn::gemm").selects("nn::gemm", 0));
  EXPECT_TRUE(parsed("all", "*::gemm").selects("nn::gemm", 0));
  EXPECT_TRUE(parsed("all", "(anonymous namespace)::*").selects("(anonymous namespace)::k", 0));
}

struct BadValue {
  const char *launches, *kernels, *message;
};

constexpr const char *kLaunchesHelp =
    " (expected first:N, every:K, every:K@O, A-B, A-, N, all or none, separated by commas; "
    "docs/launches.md)";
constexpr const char *kKernelsHelp =
    " (expected kernel name patterns with *, ? and [abc], -PATTERN to exclude, separated by "
    "commas; docs/launches.md)";

TEST(LaunchSelection, BadValuesAreClearErrors) {
  const std::string L = kLaunchesHelp, K = kKernelsHelp;
  const std::vector<BadValue> cases = {
      {"first:x", "", "CUTRACE_LAUNCHES=\"first:x\": \"x\" is not a count"},
      {"first:4,,every:2", "", "CUTRACE_LAUNCHES=\"first:4,,every:2\": item 2 is empty"},
      {"first:4,", "", "CUTRACE_LAUNCHES=\"first:4,\": item 2 is empty"},
      {"", "", "CUTRACE_LAUNCHES=\"\": no item; use none to record nothing"},
      {" ", "", "CUTRACE_LAUNCHES=\" \": no item; use none to record nothing"},
      {"every:0", "",
       "CUTRACE_LAUNCHES=\"every:0\": every:0 selects nothing; the step must be "
       "at least 1"},
      {"first:2,9-3", "",
       "CUTRACE_LAUNCHES=\"first:2,9-3\": item 2: the range \"9-3\" ends "
       "before it starts"},
      {"first:4294967296", "",
       "CUTRACE_LAUNCHES=\"first:4294967296\": \"4294967296\" is past "
       "the largest count, 4294967295"},
      {"99999999999999999999999", "",
       "CUTRACE_LAUNCHES=\"99999999999999999999999\": "
       "\"99999999999999999999999\" is past the largest launch "
       "index, 4294967295"},
      {"every:4@4294967296", "",
       "CUTRACE_LAUNCHES=\"every:4@4294967296\": \"4294967296\" is "
       "past the largest offset, 4294967295"},
      {"first:18446744073709551617", "",
       "CUTRACE_LAUNCHES=\"first:18446744073709551617\": "
       "\"18446744073709551617\" is past the largest count, "
       "4294967295"},
      {"last:4", "", "CUTRACE_LAUNCHES=\"last:4\": \"last:4\" is not an item"},
      {"ALL", "", "CUTRACE_LAUNCHES=\"ALL\": \"ALL\" is not an item"},
      {"-5", "", "CUTRACE_LAUNCHES=\"-5\": \"-5\" is not an item"},
      {"first", "", "CUTRACE_LAUNCHES=\"first\": \"first\" needs a number: first:N"},
      {"every 4", "", "CUTRACE_LAUNCHES=\"every 4\": \"every\" needs a number: every:K"},
      {"first:", "", "CUTRACE_LAUNCHES=\"first:\": the count is missing"},
      {"every:", "", "CUTRACE_LAUNCHES=\"every:\": the step is missing"},
      {"every:4@", "", "CUTRACE_LAUNCHES=\"every:4@\": the offset is missing"},
      {"first:4x", "", "CUTRACE_LAUNCHES=\"first:4x\": unexpected \"x\" after \"4\""},
      {"first: 4", "", "CUTRACE_LAUNCHES=\"first: 4\": \" 4\" is not a count"},
      {"3-5-7", "", "CUTRACE_LAUNCHES=\"3-5-7\": unexpected \"-7\" after \"5\""},
      {"every:4@2@3", "", "CUTRACE_LAUNCHES=\"every:4@2@3\": unexpected \"@3\" after \"2\""},
      {"all4", "", "CUTRACE_LAUNCHES=\"all4\": unexpected \"4\" after \"all\""},
      {"first:4;every:2", "",
       "CUTRACE_LAUNCHES=\"first:4;every:2\": unexpected \";every:2\" "
       "after \"4\""},
      {"first:\x01\"", "",
       "CUTRACE_LAUNCHES=\"first:\\x01\\x22\": \"\\x01\\x22\" is not a "
       "count"},
  };
  const std::vector<BadValue> kernel_cases = {
      {"all", "gemm,,softmax", "CUTRACE_KERNELS=\"gemm,,softmax\": pattern 2 is empty"},
      {"all", " ", "CUTRACE_KERNELS=\" \": pattern 1 is empty"},
      {"all", "gemm,", "CUTRACE_KERNELS=\"gemm,\": pattern 2 is empty"},
      {"all", "gemm,-",
       "CUTRACE_KERNELS=\"gemm,-\": pattern 2 \"-\" excludes nothing: a name "
       "pattern must follow it"},
      {"all", "gemm[ab",
       "CUTRACE_KERNELS=\"gemm[ab\": \"gemm[ab\" has a \"[\" that is never "
       "closed"},
      {"all", "x,k[]", "CUTRACE_KERNELS=\"x,k[]\": pattern 2: \"k[]\" has an empty set \"[]\""},
      {"all", "k[!]", "CUTRACE_KERNELS=\"k[!]\": \"k[!]\" has an empty set \"[!]\""},
      {"all", "k[z-a]", "CUTRACE_KERNELS=\"k[z-a]\": \"k[z-a]\" has a backwards range \"z-a\""},
  };
  for (const BadValue &bad : cases) {
    const Expected<LaunchSelection> selection = parse_launch_selection(bad.launches, bad.kernels);
    ASSERT_FALSE(selection) << bad.launches;
    EXPECT_EQ(selection.error, bad.message + L);
  }
  for (const BadValue &bad : kernel_cases) {
    const Expected<LaunchSelection> selection = parse_launch_selection(bad.launches, bad.kernels);
    ASSERT_FALSE(selection) << bad.kernels;
    EXPECT_EQ(selection.error, bad.message + K);
  }
}

TEST(LaunchSelection, MaxLaunchesIsAliasOfFirstN) {
  std::string note = "stale";
  const Expected<LaunchSelection> alias =
      launch_selection_from_values(nullptr, "8", nullptr, &note);
  ASSERT_TRUE(alias) << alias.error;
  EXPECT_EQ(alias->launches_text, "first:8");
  EXPECT_EQ(note, "");
  for (uint64_t i = 0; i < 100; ++i)
    EXPECT_EQ(alias->selects("k", i), parsed("first:8").selects("k", i)) << i;
}

TEST(LaunchSelection, LaunchesWinsOverMaxLaunchesWithANote) {
  std::string note;
  const Expected<LaunchSelection> both =
      launch_selection_from_values("every:2", "8", nullptr, &note);
  ASSERT_TRUE(both) << both.error;
  EXPECT_EQ(both->launches_text, "every:2");
  EXPECT_EQ(note, "CUTRACE_MAX_LAUNCHES=\"8\" is ignored: CUTRACE_LAUNCHES=\"every:2\" is set and "
                  "wins (docs/launches.md)");
  // Even a bad CUTRACE_MAX_LAUNCHES is ignored then: only the variable in force is read.
  EXPECT_TRUE(launch_selection_from_values("all", "lots", nullptr, &note));
}

TEST(LaunchSelection, BadMaxLaunchesIsAnErrorNotTheDefault) {
  const Expected<LaunchSelection> bad =
      launch_selection_from_values(nullptr, "-1", nullptr, nullptr);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error, "CUTRACE_MAX_LAUNCHES=\"-1\": \"-1\" is not a count "
                       "(CUTRACE_MAX_LAUNCHES=N means first:N; docs/launches.md)");
  EXPECT_FALSE(launch_selection_from_values(nullptr, "4,every:2", nullptr, nullptr));
  EXPECT_FALSE(launch_selection_from_values(nullptr, "4294967296", nullptr, nullptr));
}

TEST(LaunchSelection, UnsetOrEmptyVariablesTakeTheirDefaults) {
  for (const char *empty : {static_cast<const char *>(nullptr), ""}) {
    const Expected<LaunchSelection> selection =
        launch_selection_from_values(empty, empty, empty, nullptr);
    ASSERT_TRUE(selection) << selection.error;
    EXPECT_EQ(selection->launches_text, kDefaultLaunches);
    EXPECT_EQ(selection->kernels_text, "*");
  }
}

// Sets a variable for one test and restores what was there.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

private:
  const char *name_;
  std::optional<std::string> old_;
};

TEST(LaunchSelection, EnvironmentIsReadFromTheThreeVariables) {
  ScopedEnv launches("CUTRACE_LAUNCHES", "first:1"), max("CUTRACE_MAX_LAUNCHES", "3"),
      kernels("CUTRACE_KERNELS", "-slow");
  std::string note;
  const Expected<LaunchSelection> selection = launch_selection_from_env(&note);
  ASSERT_TRUE(selection) << selection.error;
  EXPECT_EQ(selection->launches_text, "first:1");
  EXPECT_EQ(selection->kernels_text, "-slow");
  EXPECT_FALSE(note.empty());
  ScopedEnv bad("CUTRACE_LAUNCHES", "every:0");
  EXPECT_FALSE(launch_selection_from_env(&note));
}

// ---- Properties ----

// A random valid CUTRACE_LAUNCHES with the indices 0..limit it must select, built item by item
// straight from the definitions of docs/launches.md.
struct RandomSpec {
  std::string text;
  std::set<uint64_t> indices;
};

std::string random_space(std::mt19937 &rng) {
  static const char *kSpaces[] = {"", "", "", " ", "\t", "  "};
  return kSpaces[rng() % 6];
}

RandomSpec random_spec(std::mt19937 &rng, uint64_t limit) {
  RandomSpec spec;
  const unsigned items = 1 + rng() % 4;
  for (unsigned n = 0; n < items; ++n) {
    const uint64_t a = rng() % 2100, b = a + rng() % 300, k = 1 + rng() % 700, o = rng() % 900;
    std::string item;
    switch (rng() % 8) {
    case 0:
      item = "first:" + std::to_string(a);
      for (uint64_t i = 0; i < a && i <= limit; ++i)
        spec.indices.insert(i);
      break;
    case 1:
      item = "every:" + std::to_string(k);
      for (uint64_t i = 0; i <= limit; i += k)
        spec.indices.insert(i);
      break;
    case 2:
      item = "every:" + std::to_string(k) + "@" + std::to_string(o);
      for (uint64_t i = o; i <= limit; i += k)
        spec.indices.insert(i);
      break;
    case 3:
      item = std::to_string(a) + "-" + std::to_string(b);
      for (uint64_t i = a; i <= b && i <= limit; ++i)
        spec.indices.insert(i);
      break;
    case 4:
      item = std::to_string(a) + "-";
      for (uint64_t i = a; i <= limit; ++i)
        spec.indices.insert(i);
      break;
    case 5:
      item = std::to_string(a);
      spec.indices.insert(a);
      break;
    case 6:
      item = "none";
      break;
    default:
      item = rng() % 4 == 0 ? "all" : "first:" + std::to_string(rng() % 5);
      for (uint64_t i = 0; i <= limit; ++i)
        if (item == "all" || i < uint64_t(item.back() - '0'))
          spec.indices.insert(i);
    }
    spec.text += (n == 0 ? "" : ",") + random_space(rng) + item + random_space(rng);
  }
  return spec;
}

TEST(LaunchSelection, SelectsEqualsBruteForceReference) {
  std::mt19937 rng(20260413);
  constexpr uint64_t kLimit = 2000;
  for (int round = 0; round < 400; ++round) {
    const RandomSpec spec = random_spec(rng, kLimit);
    const Expected<LaunchSelection> selection = parse_launch_selection(spec.text, "");
    ASSERT_TRUE(selection) << spec.text << ": " << selection.error;
    for (uint64_t i = 0; i <= kLimit; ++i)
      ASSERT_EQ(selection->selects("k", i), spec.indices.count(i) == 1)
          << "\"" << spec.text << "\" at index " << i;
  }
}

TEST(LaunchSelection, NormalizedTextSelectsTheSame) {
  std::mt19937 rng(41);
  for (int round = 0; round < 200; ++round) {
    const RandomSpec spec = random_spec(rng, 0);
    const LaunchSelection first = parsed(spec.text);
    const LaunchSelection again = parsed(first.launches_text);
    EXPECT_EQ(again.launches_text, first.launches_text);
    for (uint64_t i = 0; i <= 2500; i += 1 + rng() % 7)
      ASSERT_EQ(again.selects("k", i), first.selects("k", i)) << spec.text << " at " << i;
  }
}

std::string random_text(std::mt19937 &rng, const std::string &alphabet, size_t max_length) {
  std::string out(rng() % (max_length + 1), ' ');
  for (char &c : out)
    c = alphabet[rng() % alphabet.size()];
  return out;
}

// Kernel patterns mean what POSIX fnmatch means for *, ?, [set], [a-z] and [!set].
TEST(LaunchSelection, GlobMatchesAgreeWithFnmatch) {
  std::mt19937 rng(7);
  const std::string pattern_chars = "ab:*?[]!-", name_chars = "ab:-!]";
  int compared = 0;
  for (int round = 0; round < 20000; ++round) {
    const std::string pattern = random_text(rng, pattern_chars, 8);
    if (pattern.empty() || pattern.front() == '-' || pattern.find(',') != std::string::npos ||
        pattern.find("[:") != std::string::npos || !parse_launch_selection("all", pattern))
      continue; // not a valid single include pattern; [: starts a character class in fnmatch
    const std::string name = random_text(rng, name_chars, 8);
    ASSERT_EQ(glob_matches(pattern, name),
              fnmatch(pattern.c_str(), name.c_str(), FNM_NOESCAPE) == 0)
        << "pattern \"" << pattern << "\" name \"" << name << "\"";
    ++compared;
  }
  EXPECT_GT(compared, 2000);
}

TEST(LaunchSelection, KernelSelectionEqualsBruteForceReference) {
  std::mt19937 rng(99);
  const std::string chars = "ab*?", names = "ab";
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::pair<std::string, bool>> patterns;
    std::string text;
    for (unsigned n = 0, count = 1 + rng() % 3; n < count; ++n) {
      std::string glob = random_text(rng, chars, 4);
      glob = glob.empty() ? "a" : glob;
      const bool excludes = rng() % 3 == 0;
      patterns.push_back({glob, excludes});
      text += (n == 0 ? "" : ",") + std::string(excludes ? "-" : "") + glob;
    }
    const LaunchSelection selection = parsed("all", text);
    const std::string name = random_text(rng, names, 4);
    bool has_include = false, included = false, excluded = false;
    for (const auto &[glob, excludes] : patterns) {
      const bool matches = fnmatch(glob.c_str(), name.c_str(), FNM_NOESCAPE) == 0;
      (excludes ? excluded : included) |= matches;
      has_include |= !excludes;
    }
    ASSERT_EQ(selection.selects(name, 0), (included || !has_include) && !excluded)
        << "CUTRACE_KERNELS=\"" << text << "\" kernel \"" << name << "\"";
  }
}

// Random bytes and near-misses of the grammar: always a value or a message, never a crash.
TEST(LaunchSelection, RandomTextNeverCrashes) {
  std::mt19937 rng(3);
  std::string bytes;
  for (int c = 0; c < 256; ++c)
    bytes += char(c);
  const std::string grammar = "firstvey:@-,0123456789 alnoe*?[]!^";
  for (int round = 0; round < 20000; ++round) {
    const std::string &alphabet = round % 2 ? bytes : grammar;
    const std::string launches = random_text(rng, alphabet, 24);
    const std::string kernels = random_text(rng, alphabet, 12);
    const Expected<LaunchSelection> selection = parse_launch_selection(launches, kernels);
    if (!selection) {
      EXPECT_TRUE(selection.error.rfind("CUTRACE_LAUNCHES=\"", 0) == 0 ||
                  selection.error.rfind("CUTRACE_KERNELS=\"", 0) == 0)
          << selection.error;
      EXPECT_NE(selection.error.find("docs/launches.md"), std::string::npos);
      continue;
    }
    for (uint64_t i : {uint64_t(0), uint64_t(7), uint64_t(1) << 33})
      selection->selects(random_text(rng, alphabet, 10), i);
    EXPECT_TRUE(parse_launch_selection(selection->launches_text, selection->kernels_text));
  }
  for (int round = 0; round < 20000; ++round) // invalid patterns too, as a caller might pass
    glob_matches(random_text(rng, "ab[]!-*?", 10), random_text(rng, "ab[]!-", 10));
}

} // namespace
} // namespace cutrace
