// The ledger of launches cutrace could not route (unrecorded.h): the kernels the rewrite could not
// route a value use of, the cudaKernel_t handles made from kernels, and the count per instance.
#include "unrecorded.h"
#include "session.h"

#include <cutrace/launch.h>

#include <cxxabi.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace cutrace {
namespace detail {
const KernelMap *registered_map(const void *original); // twin_registry.cpp
} // namespace detail

namespace {

constexpr const char *kHandleReason =
    "launched through cudaKernel_t handles, which cutrace cannot route";

// What a kernel pointer is, as far as the ledger cares; decided once per pointer.
struct Resolved {
  const KernelMap *map = nullptr; // null: not a traced kernel the ledger knows
  std::string instance;           // `gemm<float>`, or the map's name when CUDA cannot say
  std::string why;                // its registerUnrouted() reasons
};

struct Count {
  std::string why;
  uint64_t launches = 0;
};

// Never destroyed: launches may run from other static destructors and exit handlers.
class Ledger {
public:
  void add_unrouted(const KernelMap &map, const char *why) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::pair<const KernelMap *, std::string>> &entries = unrouted_[map.kernel];
    for (const auto &e : entries)
      if (e.second == why)
        return;
    entries.emplace_back(&map, why);
    resolved_.clear(); // a pointer named before may be this kernel
    any_.store(true, std::memory_order_release);
  }

  bool any_unrouted() const { return any_.load(std::memory_order_acquire); }

  void note_handle(cudaKernel_t handle, const void *func) {
    std::lock_guard<std::mutex> lock(mu_);
    handles_[handle] = func;
  }

  const void *handle_func(cudaKernel_t handle) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = handles_.find(handle);
    return it == handles_.end() ? nullptr : it->second;
  }

  Resolved resolve(const void *func) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (const auto it = resolved_.find(func); it != resolved_.end())
        return it->second;
    }
    std::string base, instance = reported_name(func, &base);
    Resolved r;
    r.map = detail::registered_map(func);
    std::lock_guard<std::mutex> lock(mu_);
    const auto entries = unrouted_.find(r.map != nullptr ? std::string(r.map->kernel) : base);
    if (entries != unrouted_.end() && !entries->second.empty()) {
      if (r.map == nullptr)
        r.map = entries->second.front().first;
      r.why = entries->second.front().second;
      if (entries->second.size() > 1)
        r.why += " (and " + std::to_string(entries->second.size() - 1) + " more)";
    }
    r.instance = instance.empty() && r.map != nullptr ? r.map->kernel : instance;
    resolved_.emplace(func, r);
    return r;
  }

  void count(const std::string &instance, const std::string &why) {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = counts_.try_emplace(instance + '\n' + why);
    if (inserted) {
      order_.push_back(it->first);
      it->second.why = why;
    }
    ++it->second.launches;
  }

  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const std::string &key : order_) {
      const Count &c = counts_.at(key);
      out.push_back("cutrace: " + key.substr(0, key.find('\n')) + ": " +
                    std::to_string(c.launches) + (c.launches == 1 ? " launch" : " launches") +
                    " ran unrecorded: " + c.why);
    }
    return out;
  }

private:
  // The instance name CUDA reports for `func`; empty when it cannot say (no device, no name).
  static std::string reported_name(const void *func, std::string *base) {
    const cudaError_t pending = cudaPeekAtLastError(); // the caller's error stays theirs
    const char *name = nullptr;
    const bool named = cudaFuncGetName(&name, func) == cudaSuccess && name != nullptr;
    if (pending == cudaSuccess)
      (void)cudaGetLastError();
    return named ? detail::instance_name(name, base) : std::string();
  }

  std::mutex mu_;
  std::atomic<bool> any_{false};
  std::map<std::string, std::vector<std::pair<const KernelMap *, std::string>>> unrouted_;
  std::unordered_map<const void *, const void *> handles_;
  std::unordered_map<const void *, Resolved> resolved_;
  std::map<std::string, Count> counts_; // by instance and reason
  std::vector<std::string> order_;
};

Ledger &ledger() {
  static Ledger *l = new Ledger();
  return *l;
}

// Counts one launch of `r` when the selection asks for it (the launch takes its launch index).
void count_if_selected(const Resolved &r, const std::string &why) {
  if (r.map == nullptr)
    return;
  if (!detail::admit(*r.map).record)
    return;
  detail::report_at_exit();
  ledger().count(r.instance, why);
}

// The position of the '(' or '<' that opens the bracket closing at `close`, or npos.
size_t opening(const std::string &s, size_t close, char open, char shut) {
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (s[i] == shut)
      ++depth;
    else if (s[i] == open && --depth == 0)
      return i;
  }
  return std::string::npos;
}

} // namespace

bool registerUnrouted(const KernelMap &map, const char *why) {
  ledger().add_unrouted(map, why);
  return true;
}

namespace detail {

std::string instance_name(const char *reported, std::string *base) {
  int status = -1;
  std::unique_ptr<char, void (*)(void *)> demangled(
      abi::__cxa_demangle(reported, nullptr, nullptr, &status), std::free);
  std::string name = status == 0 && demangled ? demangled.get() : reported;
  // `void ns::gemm<float>(float*, int)`: the parameter list, then the return type, go.
  if (!name.empty() && name.back() == ')')
    if (const size_t open = opening(name, name.size() - 1, '(', ')'); open != std::string::npos)
      name.erase(open);
  if (name.rfind("void ", 0) == 0)
    name.erase(0, 5);
  if (base != nullptr) {
    *base = name;
    if (!name.empty() && name.back() == '>')
      if (const size_t open = opening(name, name.size() - 1, '<', '>'); open != std::string::npos)
        base->erase(open);
  }
  return name;
}

void count_unregistered_launch(const void *func) {
  if (!ledger().any_unrouted())
    return;
  const Resolved r = ledger().resolve(func);
  count_if_selected(r, r.why);
}

void note_handle(cudaKernel_t handle, const void *func) { ledger().note_handle(handle, func); }

void count_handle_launch(cudaKernel_t handle) {
  const void *func = ledger().handle_func(handle);
  if (func != nullptr)
    count_if_selected(ledger().resolve(func), kHandleReason);
}

std::vector<std::string> unrecorded_lines() { return ledger().lines(); }

} // namespace detail
} // namespace cutrace
