// cutrace::Expected: a value or the reason there is none (errors are values until a tool turns
// them into an exit status).
#ifndef CUTRACE_EXPECTED_H
#define CUTRACE_EXPECTED_H

#include <optional>
#include <string>
#include <utility>

namespace cutrace {

// A value or the reason there is none.
template <class T> struct Expected {
  std::optional<T> value;
  std::string error;

  static Expected failure(std::string why) { return Expected{std::nullopt, std::move(why)}; }
  explicit operator bool() const { return value.has_value(); }
  const T &operator*() const { return *value; }
  T &operator*() { return *value; }
  const T *operator->() const { return &*value; }
  T *operator->() { return &*value; }
};

} // namespace cutrace

#endif // CUTRACE_EXPECTED_H
