// The registry of traced twins, keyed by the original kernel's host address, and the choice
// every launch entry point of launch.h makes: twin with a fresh buffer, or the original as is.
#include "session.h"
#include "twin_attributes.h"
#include "unrecorded.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <shared_mutex>
#include <unordered_map>

namespace cutrace {
namespace {

struct Twin {
  Twin(const void *original, const void *twin, const KernelMap &map, unsigned params)
      : original(original), twin(twin), map(&map), params(params), attributes(original, twin) {}

  const void *original, *twin;
  const KernelMap *map;
  unsigned params;
  TwinAttributes attributes;
  std::atomic<bool> noted{false}; // one note per kernel on stderr
};

// A hash map under a shared lock: launches only read it and never wait for one another;
// registration (static initializers, a static launch site's first launch) takes it exclusively.
// Entries are never removed, so a found Twin stays valid.
class TwinRegistry {
public:
  Twin *find(const void *original) {
    std::shared_lock<std::shared_mutex> lock(mu_);
    const auto it = twins_.find(original);
    return it == twins_.end() ? nullptr : it->second.get();
  }

  Twin *insert(const void *original, const void *twin, const KernelMap &map, unsigned params) {
    std::unique_lock<std::shared_mutex> lock(mu_);
    std::unique_ptr<Twin> &slot = twins_[original];
    if (slot == nullptr)
      slot = std::make_unique<Twin>(original, twin, map, params);
    return slot.get();
  }

private:
  std::shared_mutex mu_;
  std::unordered_map<const void *, std::unique_ptr<Twin>> twins_;
};

// Never destroyed: launches may run from other static destructors and exit handlers.
TwinRegistry &registry() {
  static TwinRegistry *r = new TwinRegistry();
  return *r;
}

void note_once(Twin &t, const std::string &why) {
  if (!t.noted.exchange(true))
    std::fprintf(stderr,
                 "cutrace: %s: launch not recorded, the original kernel ran instead: %s "
                 "(said once per kernel)\n",
                 t.map->kernel, why.c_str());
}

detail::LaunchChoice choose(Twin &t, unsigned params, const detail::LaunchShape &shape) {
  const detail::LaunchChoice original{t.original, nullptr, 0};
  if (params != detail::kUnknownParams && params != t.params) {
    note_once(t, "the kernel was registered with " + std::to_string(t.params) +
                     " parameter(s) and this launch passes " + std::to_string(params) +
                     "; rebuild every file of the target from the same sources");
    return original;
  }
  const detail::Admission admission = detail::admit(*t.map);
  if (!admission.record)
    return original;
  std::string why;
  switch (t.attributes.check(shape, why)) {
  case TwinAttributes::Verdict::twin:
    break;
  case TwinAttributes::Verdict::original:
    return original;
  case TwinAttributes::Verdict::original_with_note:
    note_once(t, why);
    return original;
  }
  Slots *slots =
      detail::record_launch(*t.map, shape.grid, shape.block, shape.stream, admission.index);
  if (slots == nullptr)
    return original;
  return {t.twin, slots, t.params};
}

} // namespace

bool registerTwin(const void *original, const void *twin, const KernelMap &map, unsigned params) {
  registry().insert(original, twin, map, params);
  return true;
}

namespace detail {

const void *registered_twin(const void *original) {
  const Twin *t = registry().find(original);
  return t == nullptr ? nullptr : t->twin;
}

const KernelMap *registered_map(const void *original) {
  const Twin *t = registry().find(original);
  return t == nullptr ? nullptr : t->map;
}

LaunchChoice choose_launch(const void *original, unsigned params, const LaunchShape &shape) {
  Twin *t = registry().find(original);
  if (t == nullptr) {
    count_unregistered_launch(original);
    return {original, nullptr, 0};
  }
  return choose(*t, params, shape);
}

LaunchChoice choose_pair_launch(const KernelMap &map, const void *original, const void *twin,
                                unsigned params, const LaunchShape &shape) {
  Twin *t = registry().find(original);
  if (t == nullptr)
    t = registry().insert(original, twin, map, params);
  return choose(*t, params, shape);
}

} // namespace detail
} // namespace cutrace
