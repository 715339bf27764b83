// CUTRACE_LAUNCHES and CUTRACE_KERNELS: the grammar of docs/launches.md, parsed into items and
// patterns, with one message per kind of mistake.
#include "launch_selection.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace cutrace {

namespace {

constexpr const char *kLaunchesHelp =
    "expected first:N, every:K, every:K@O, A-B, A-, N, all or none, separated by commas; "
    "docs/launches.md";
constexpr const char *kKernelsHelp =
    "expected kernel name patterns with *, ? and [abc], -PATTERN to exclude, separated by "
    "commas; docs/launches.md";
constexpr uint64_t kLargestNumber = UINT32_MAX;

unsigned char byte(char c) { return static_cast<unsigned char>(c); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_commas(std::string_view text) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    parts.push_back(trim(text.substr(start, comma - start)));
    if (comma == std::string_view::npos)
      return parts;
    start = comma + 1;
  }
}

// The text as a message shows it: printable ASCII as is, every other byte as \xNN.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (byte(c) >= 0x20 && byte(c) < 0x7f && c != '"' && c != '\\') {
      out += c;
      continue;
    }
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, "\\x%02x", byte(c));
    out += escaped;
  }
  return out + "\"";
}

template <class T> Expected<T> problem(std::string why) {
  return Expected<T>::failure(std::move(why));
}

// A decimal number up to 2^32-1; `what` names it in messages ("count", "step", ...).
Expected<uint64_t> parse_number(std::string_view text, const char *what) {
  if (text.empty())
    return problem<uint64_t>(std::string("the ") + what + " is missing");
  size_t digits = 0;
  uint64_t value = 0;
  for (; digits < text.size() && is_digit(text[digits]); ++digits)
    value = std::min(value * 10 + uint64_t(text[digits] - '0'), kLargestNumber + 1);
  if (digits == 0)
    return problem<uint64_t>(quoted(text) + " is not a " + what);
  if (digits < text.size())
    return problem<uint64_t>("unexpected " + quoted(text.substr(digits)) + " after " +
                             quoted(text.substr(0, digits)));
  if (value > kLargestNumber)
    return problem<uint64_t>(quoted(text) + " is past the largest " + what + ", 4294967295");
  return Expected<uint64_t>{value, {}};
}

struct ParsedItem {
  LaunchItem item;
  std::string text; // normalized
};

Expected<ParsedItem> parsed(LaunchItem item, std::string text) {
  return Expected<ParsedItem>{ParsedItem{item, std::move(text)}, {}};
}

constexpr LaunchItem kNoLaunch{1, 0, 1}; // first > last: selects nothing

Expected<ParsedItem> parse_first(std::string_view count_text) {
  const Expected<uint64_t> count = parse_number(count_text, "count");
  if (!count)
    return problem<ParsedItem>(count.error);
  const LaunchItem item = *count == 0 ? kNoLaunch : LaunchItem{0, *count - 1, 1};
  return parsed(item, "first:" + std::to_string(*count));
}

Expected<ParsedItem> parse_every(std::string_view rest) {
  const size_t at = rest.find('@');
  const Expected<uint64_t> step = parse_number(rest.substr(0, at), "step");
  if (!step)
    return problem<ParsedItem>(step.error);
  if (*step == 0)
    return problem<ParsedItem>("every:0 selects nothing; the step must be at least 1");
  std::string text = "every:" + std::to_string(*step);
  if (at == std::string_view::npos)
    return parsed({0, UINT64_MAX, *step}, text);
  const Expected<uint64_t> offset = parse_number(rest.substr(at + 1), "offset");
  if (!offset)
    return problem<ParsedItem>(offset.error);
  if (*offset != 0)
    text += "@" + std::to_string(*offset);
  return parsed({*offset, UINT64_MAX, *step}, text);
}

// `N`, `A-B` or `A-`.
Expected<ParsedItem> parse_indices(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && is_digit(text[digits]))
    ++digits;
  if (digits == text.size() || text[digits] != '-') {
    const Expected<uint64_t> index = parse_number(text, "launch index");
    if (!index)
      return problem<ParsedItem>(index.error);
    return parsed({*index, *index, 1}, std::to_string(*index));
  }
  const Expected<uint64_t> first = parse_number(text.substr(0, digits), "launch index");
  if (!first)
    return problem<ParsedItem>(first.error);
  const std::string_view last_text = text.substr(digits + 1);
  if (last_text.empty())
    return parsed({*first, UINT64_MAX, 1}, std::to_string(*first) + "-");
  const Expected<uint64_t> last = parse_number(last_text, "launch index");
  if (!last)
    return problem<ParsedItem>(last.error);
  if (*last < *first)
    return problem<ParsedItem>("the range " + quoted(text) + " ends before it starts");
  return parsed({*first, *last, 1}, std::to_string(*first) + "-" + std::to_string(*last));
}

// `all`, `none`, `first:N`, `every:K[@O]`: a word, then what the word needs.
Expected<ParsedItem> parse_word_item(std::string_view text) {
  size_t letters = 0;
  while (letters < text.size() && is_letter(text[letters]))
    ++letters;
  const std::string_view word = text.substr(0, letters), rest = text.substr(letters);
  if (word == "all" || word == "none") {
    if (!rest.empty())
      return problem<ParsedItem>("unexpected " + quoted(rest) + " after " + quoted(word));
    return parsed(word == "all" ? LaunchItem{} : kNoLaunch, std::string(word));
  }
  if (word != "first" && word != "every")
    return problem<ParsedItem>(quoted(text) + " is not an item");
  if (rest.empty() || rest.front() != ':')
    return problem<ParsedItem>(quoted(word) +
                               " needs a number: " + (word == "first" ? "first:N" : "every:K"));
  return word == "first" ? parse_first(rest.substr(1)) : parse_every(rest.substr(1));
}

Expected<ParsedItem> parse_item(std::string_view text) {
  if (is_digit(text.front()))
    return parse_indices(text);
  if (is_letter(text.front()))
    return parse_word_item(text);
  return problem<ParsedItem>(quoted(text) + " is not an item");
}

// Fills items and launches_text, or says what is wrong with `text`.
std::string parse_launches(std::string_view text, LaunchSelection &out) {
  const std::string prefix = "CUTRACE_LAUNCHES=" + quoted(text) + ": ";
  const std::string help = std::string(" (") + kLaunchesHelp + ")";
  if (trim(text).empty())
    return prefix + "no item; use none to record nothing" + help;
  const std::vector<std::string_view> parts = split_commas(text);
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string where = "item " + std::to_string(i + 1);
    if (parts[i].empty())
      return prefix + where + " is empty" + help;
    const Expected<ParsedItem> item = parse_item(parts[i]);
    if (!item)
      return prefix + (parts.size() > 1 ? where + ": " : "") + item.error + help;
    out.items.push_back(item->item);
    out.launches_text += (i == 0 ? "" : ",") + item->text;
  }
  return {};
}

// The first set `[...]` at or after `open` ends at the returned index (its `]`); npos when the
// set never closes. A leading `!` or `^` negates and is not part of the set's body.
size_t set_end(std::string_view glob, size_t open) {
  size_t body = open + 1;
  if (body < glob.size() && (glob[body] == '!' || glob[body] == '^'))
    ++body;
  return glob.find(']', body);
}

// What is wrong with a glob's sets, or an empty string.
std::string check_glob(std::string_view glob) {
  for (size_t open = glob.find('['); open != std::string_view::npos;
       open = glob.find('[', open + 1)) {
    const size_t close = set_end(glob, open);
    if (close == std::string_view::npos)
      return quoted(glob) + " has a \"[\" that is never closed";
    const size_t body = glob[open + 1] == '!' || glob[open + 1] == '^' ? open + 2 : open + 1;
    const std::string_view set = glob.substr(open, close + 1 - open);
    if (close == body)
      return quoted(glob) + " has an empty set " + quoted(set);
    for (size_t i = body; i + 2 < close; ++i) { // the ranges as element_matches reads them
      if (glob[i + 1] != '-')
        continue;
      if (byte(glob[i + 2]) < byte(glob[i]))
        return quoted(glob) + " has a backwards range " + quoted(glob.substr(i, 3));
      i += 2;
    }
    open = close;
  }
  return {};
}

std::string parse_kernels(std::string_view text, LaunchSelection &out) {
  const std::string prefix = "CUTRACE_KERNELS=" + quoted(text) + ": ";
  const std::string help = std::string(" (") + kKernelsHelp + ")";
  if (text.empty()) {
    out.kernels_text = "*";
    return {};
  }
  const std::vector<std::string_view> parts = split_commas(text);
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string where = "pattern " + std::to_string(i + 1);
    KernelPattern pattern{std::string(parts[i]), false};
    if (parts[i].empty())
      return prefix + where + " is empty" + help;
    if (parts[i].front() == '-') {
      pattern = {std::string(trim(parts[i].substr(1))), true};
      if (pattern.glob.empty())
        return prefix + where + " \"-\" excludes nothing: a name pattern must follow it" + help;
    }
    if (const std::string bad = check_glob(pattern.glob); !bad.empty())
      return prefix + (parts.size() > 1 ? where + ": " : "") + bad + help;
    out.kernels_text +=
        (i == 0 ? "" : ",") + std::string(pattern.excludes ? "-" : "") + pattern.glob;
    out.patterns.push_back(std::move(pattern));
  }
  return {};
}

// One pattern element (a character, `?`, or a whole set) against one character.
bool element_matches(std::string_view element, char c) {
  if (element == "?")
    return true;
  if (element.size() == 1 || element.front() != '[')
    return element.front() == c;
  std::string_view body = element.substr(1, element.size() - 2);
  const bool negated = !body.empty() && (body.front() == '!' || body.front() == '^');
  if (negated)
    body.remove_prefix(1);
  bool in_set = false;
  for (size_t i = 0; i < body.size(); ++i) {
    if (i + 2 < body.size() && body[i + 1] == '-') {
      in_set |= byte(body[i]) <= byte(c) && byte(c) <= byte(body[i + 2]);
      i += 2;
    } else {
      in_set |= body[i] == c;
    }
  }
  return in_set != negated;
}

// The length of the element at `p`: a whole set, else one character (an unclosed `[` included).
size_t element_length(std::string_view pattern, size_t p) {
  if (pattern[p] != '[')
    return 1;
  const size_t close = set_end(pattern, p);
  return close == std::string_view::npos ? 1 : close + 1 - p;
}

// CUTRACE_MAX_LAUNCHES=N, the alias of first:N, with messages that name it.
Expected<LaunchSelection> max_launches_alias(std::string_view value, std::string_view kernels) {
  const Expected<uint64_t> count = parse_number(trim(value), "count");
  if (!count)
    return problem<LaunchSelection>("CUTRACE_MAX_LAUNCHES=" + quoted(value) + ": " + count.error +
                                    " (CUTRACE_MAX_LAUNCHES=N means first:N; docs/launches.md)");
  return parse_launch_selection("first:" + std::to_string(*count), kernels);
}

} // namespace

bool LaunchItem::selects(uint64_t index) const {
  return first <= index && index <= last && (index - first) % step == 0;
}

bool LaunchSelection::selects_index(uint64_t index) const {
  for (const LaunchItem &item : items)
    if (item.selects(index))
      return true;
  return false;
}

bool LaunchSelection::selects_kernel(std::string_view kernel) const {
  bool has_include = false, included = false;
  for (const KernelPattern &pattern : patterns) {
    const bool matches = glob_matches(pattern.glob, kernel);
    if (pattern.excludes && matches)
      return false;
    has_include |= !pattern.excludes;
    included |= !pattern.excludes && matches;
  }
  return included || !has_include;
}

bool glob_matches(std::string_view pattern, std::string_view name) {
  // Greedy with one backtrack point, the last `*`: linear in practice, never exponential.
  size_t p = 0, n = 0, after_star = std::string_view::npos, star_name = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      after_star = ++p;
      star_name = n;
      continue;
    }
    if (p < pattern.size()) {
      const size_t length = element_length(pattern, p);
      if (element_matches(pattern.substr(p, length), name[n])) {
        p += length;
        ++n;
        continue;
      }
    }
    if (after_star == std::string_view::npos)
      return false;
    p = after_star;
    n = ++star_name;
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

Expected<LaunchSelection> parse_launch_selection(std::string_view launches,
                                                 std::string_view kernels) {
  LaunchSelection out;
  if (std::string why = parse_launches(launches, out); !why.empty())
    return problem<LaunchSelection>(std::move(why));
  if (std::string why = parse_kernels(kernels, out); !why.empty())
    return problem<LaunchSelection>(std::move(why));
  return Expected<LaunchSelection>{std::move(out), {}};
}

Expected<LaunchSelection> launch_selection_from_values(const char *launches,
                                                       const char *max_launches,
                                                       const char *kernels, std::string *note) {
  const auto set = [](const char *v) { return v != nullptr && *v != '\0'; };
  if (note != nullptr)
    note->clear();
  const std::string_view kernel_text = set(kernels) ? kernels : "";
  if (set(launches)) {
    if (set(max_launches) && note != nullptr)
      *note = "CUTRACE_MAX_LAUNCHES=" + quoted(max_launches) +
              " is ignored: CUTRACE_LAUNCHES=" + quoted(launches) +
              " is set and wins (docs/launches.md)";
    return parse_launch_selection(launches, kernel_text);
  }
  if (!set(max_launches))
    return parse_launch_selection(kDefaultLaunches, kernel_text);
  return max_launches_alias(max_launches, kernel_text);
}

Expected<LaunchSelection> launch_selection_from_env(std::string *note) {
  return launch_selection_from_values(std::getenv("CUTRACE_LAUNCHES"),
                                      std::getenv("CUTRACE_MAX_LAUNCHES"),
                                      std::getenv("CUTRACE_KERNELS"), note);
}

} // namespace cutrace
