// Which launches the automatic-mode session records: CUTRACE_LAUNCHES (launch indices) and
// CUTRACE_KERNELS (kernel name patterns). Grammar, defaults and precedence: docs/launches.md.
// Pure C++17, no CUDA.
#ifndef CUTRACE_SRC_LAUNCH_SELECTION_H
#define CUTRACE_SRC_LAUNCH_SELECTION_H

#include <cutrace/decode.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cutrace {

// The policy when CUTRACE_LAUNCHES and CUTRACE_MAX_LAUNCHES are unset: the warm-up launches and
// then a sample, so a loop of thousands of launches records a few dozen per kernel.
inline constexpr const char *kDefaultLaunches = "first:4,every:250";

// One item of CUTRACE_LAUNCHES: the indices first, first + step, ... up to last (inclusive).
// `first:N`, `A-B`, `A-` and `N` have step 1; `every:K@O` is first O, step K, no last.
struct LaunchItem {
  uint64_t first = 0;
  uint64_t last = UINT64_MAX;
  uint64_t step = 1;
  bool selects(uint64_t index) const;
};

// One pattern of CUTRACE_KERNELS, without its leading `-`.
struct KernelPattern {
  std::string glob;
  bool excludes = false;
};

// A parsed CUTRACE_LAUNCHES + CUTRACE_KERNELS.
struct LaunchSelection {
  std::vector<LaunchItem> items; // a launch index is selected when any item selects it
  std::vector<KernelPattern> patterns;
  std::string launches_text; // normalized, for the run file and the exit line
  std::string kernels_text;  // normalized; "*" when every kernel is selected

  // Whether launch `index` (0-based ordinal of this kernel's launches in the process, counting
  // unrecorded ones) of kernel `kernel` (the decode map's "kernel") records.
  bool selects(std::string_view kernel, uint64_t index) const {
    return selects_kernel(kernel) && selects_index(index);
  }
  // The two halves, so a caller can decide the kernel once per decode map.
  bool selects_kernel(std::string_view kernel) const;
  bool selects_index(uint64_t index) const;
};

// Parses both values. An empty `kernels` selects every kernel; an empty `launches` is an error
// (pass kDefaultLaunches for the default). Errors quote the text and point at the bad item, e.g.
// CUTRACE_LAUNCHES="first:x": "x" is not a count (expected first:N, ...; docs/launches.md)
Expected<LaunchSelection> parse_launch_selection(std::string_view launches,
                                                 std::string_view kernels);

// From CUTRACE_LAUNCHES, CUTRACE_KERNELS and the legacy CUTRACE_MAX_LAUNCHES=N (read as
// "first:N"); an unset or empty variable takes its default. When CUTRACE_LAUNCHES and
// CUTRACE_MAX_LAUNCHES are both set, CUTRACE_LAUNCHES wins and `*note` (when not null) gets one
// line saying so; otherwise `*note` is cleared. Messages carry no "cutrace: " prefix and no
// newline: the caller prints them once, and on an error records nothing.
Expected<LaunchSelection> launch_selection_from_env(std::string *note);
// The same from the three values (nullptr = unset), for callers and tests that hold them.
Expected<LaunchSelection> launch_selection_from_values(const char *launches,
                                                       const char *max_launches,
                                                       const char *kernels, std::string *note);

// Whole-name glob match: `*` any run of characters, `?` one character, `[abc]`, `[a-z]`, `[!abc]`
// one character of (not of) the set. `pattern` must be valid (parse_launch_selection checks).
bool glob_matches(std::string_view pattern, std::string_view name);

} // namespace cutrace

#endif // CUTRACE_SRC_LAUNCH_SELECTION_H
