// Launch entry points of a traced build (docs/guide.md, "Launches in a traced build";
// docs/design.md has the design). A traced file keeps every annotated kernel K unchanged and adds
// its traced twin `K_cutrace_traced` (K's parameters plus a trailing `cutrace::Slots *`). Each
// launch site the rewriter changes calls one of the functions below, which launch the twin with a
// fresh trace buffer when K has a twin and the session records this launch, and otherwise launch
// the original K exactly as the plain build would (CUTRACE=0, past CUTRACE_MAX_LAUNCHES, a twin
// that cannot run this geometry, a kernel without a twin). Host code only; included by
// <cutrace/traced.h>.
//
// The CUDA launch calls sit here, inline in the caller's translation unit, so that unit's runtime
// configuration (for example --default-stream per-thread) applies exactly as to the plain call.
#ifndef CUTRACE_LAUNCH_H
#define CUTRACE_LAUNCH_H

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include <cutrace/host.h>

namespace cutrace {

// Records that `twin` is the traced twin of the kernel `original` (both the host-side kernel
// addresses, as `(const void *)&K`), `map` its decode map and `params` the number of K's
// parameters. Emitted once per non-template twin, in a static initializer of the file that
// defines it; registering the same pair again (a header seen by several files) is harmless.
// The first pair registered for an original is kept. Thread-safe; needs no GPU; returns true.
bool registerTwin(const void *original, const void *twin, const KernelMap &map, unsigned params);

// Records that launches of the traced kernel `map` may escape the twin registry, and why, said at
// exit with their count (docs/launches.md, "Launches cutrace cannot record"). Emitted by
// trace-rewrite --traced, once per value use it cannot route (`why` names the place), in a static
// initializer of that file. Thread-safe; needs no GPU; returns true.
bool registerUnrouted(const KernelMap &map, const char *why);

namespace detail {

// A kernel's pointer type and its twin's: P... then `Slots *`.
template <class F> struct KernelType;
template <class... P> struct KernelType<void (*)(P...)> {
  static constexpr unsigned params = sizeof...(P);
  using twin = void (*)(P..., Slots *);
};

// The twin registered for `original`, or nullptr.
const void *registered_twin(const void *original);

// A cudaKernel_t handle made from `func` (getKernel() below): its launches are counted at exit.
void note_handle(cudaKernel_t handle, const void *func);
// A launch through a handle, which cutrace cannot route: counted when the selection asked for it.
void count_handle_launch(cudaKernel_t handle);

} // namespace detail

// What trace-rewrite --traced writes for a value use of a traced template kernel's instance: the
// name `K<A...>` becomes `cutrace::Registered<&K<A...>, &K_cutrace_traced<A...>, cutrace_map::K>::value`,
// a reference to the same function, so that every operator around the name keeps its meaning
// (`&`, a cast, decay to a pointer, std::addressof, a template argument) and a constant stays
// constant. Naming `value` instantiates `registered`, whose dynamic initializer registers the
// pair at start-up, before main, once per instance.
template <auto Original, auto Twin, const KernelMap &Map> struct Registered {
  static_assert(
      std::is_same_v<decltype(Twin), typename detail::KernelType<decltype(Original)>::twin>,
      "the twin takes the original's parameters and then cutrace::Slots *");
  static inline const bool registered =
      registerTwin((const void *)Original, (const void *)Twin, Map,
                   detail::KernelType<decltype(Original)>::params);
  static constexpr std::remove_pointer_t<decltype(Original)> &value =
      ((void)&registered, *Original);
};

// Everything that calls CUDA inline lives in a namespace named after the caller's default-stream
// mode, so translation units built with and without --default-stream per-thread never share
// (and the linker never merges) one definition calling the other mode's functions.
#if defined(__CUDART_API_PER_THREAD_DEFAULT_STREAM)
#define CUTRACE_LAUNCH_STREAM_MODE per_thread_default_stream
#else
#define CUTRACE_LAUNCH_STREAM_MODE legacy_default_stream
#endif

namespace detail {

// The geometry the twin must be able to run.
struct LaunchShape {
  dim3 grid, block;
  size_t shmem;
  cudaStream_t stream;
  bool cooperative; // all blocks must be co-resident (cudaLaunchCooperativeKernel)
};

// Which kernel a launch runs.
struct LaunchChoice {
  const void *func; // the original kernel, or its twin
  Slots *slots;     // the twin's last argument; non-null exactly when `func` is the twin
  unsigned params;  // the original's parameter count, when `func` is the twin
};

// A launch site that does not know the parameter count (argument-array forms).
inline constexpr unsigned kUnknownParams = ~0u;

// The registry path: the twin registered for `original`, with a buffer from cutrace::launch(),
// when the session records this launch and the twin can run it; else {original, nullptr, 0}.
// `params` (or kUnknownParams) must equal the registered count. An unregistered kernel costs one
// hash lookup under a shared lock, no allocation and no CUDA call while the program has no
// registerUnrouted() entry; with one, its name is asked of CUDA once per pointer, so a launch of
// an unrouted traced kernel can be counted at exit.
LaunchChoice choose_launch(const void *original, unsigned params, const LaunchShape &shape);
// The static path: the same for a pair named at the launch site; registers it on first use.
LaunchChoice choose_pair_launch(const KernelMap &map, const void *original, const void *twin,
                                unsigned params, const LaunchShape &shape);

// Tells the session that the kernel given `slots` is queued, so its completion can be awaited
// in the background; no-op for nullptr.
void launched(Slots *slots);

// The caller's `params` argument pointers followed by `&slots`, in a new array: the caller's
// array has exactly `params` entries (the original's parameters) and is never read past.
class ArgsWithSlots {
public:
  ArgsWithSlots(void *const *args, unsigned params, Slots **slots) {
    data_ = inline_;
    if (params + 1 > kInline) {
      heap_.resize(size_t(params) + 1);
      data_ = heap_.data();
    }
    for (unsigned i = 0; i < params; ++i)
      data_[i] = args[i];
    data_[params] = slots;
  }
  ArgsWithSlots(const ArgsWithSlots &) = delete;
  ArgsWithSlots &operator=(const ArgsWithSlots &) = delete;
  void **data() { return data_; }

private:
  static constexpr unsigned kInline = 16;
  void *inline_[kInline];
  std::vector<void *> heap_;
  void **data_;
};

// The twin's type for a kernel of parameters P...; a non-deduced context, so launchPair()
// deduces P from the kernel alone and then converts the twin (one instance of a template).
template <class... P> struct TwinOf { using type = void (*)(P..., Slots *); };

inline LaunchShape shape_of(const cudaLaunchConfig_t &config) {
  bool cooperative = false;
  for (unsigned i = 0; i < config.numAttrs; ++i)
    if (config.attrs[i].id == cudaLaunchAttributeCooperative && config.attrs[i].val.cooperative)
      cooperative = true;
  return {config.gridDim, config.blockDim, config.dynamicSmemBytes, config.stream, cooperative};
}

} // namespace detail

inline namespace CUTRACE_LAUNCH_STREAM_MODE {

// What via() and launchPair() return: call it with the launch's arguments.
template <class... P> class KernelLaunch {
public:
  KernelLaunch(const KernelMap *map, void (*kernel)(P...), const void *twin, dim3 grid, dim3 block,
               size_t shmem, cudaStream_t stream)
      : map_(map), kernel_(kernel), twin_(twin), shape_{grid, block, shmem, stream, false} {}

  // Parameters of the kernel's own types: each argument is copy-initialized from what the launch
  // site wrote, as `k<<<...>>>(a...)` does (braced lists, 0 as a null pointer, conversions).
  void operator()(P... args) const {
    const detail::LaunchChoice choice =
        map_ != nullptr
            ? detail::choose_pair_launch(*map_, (const void *)kernel_, twin_, sizeof...(P), shape_)
            : detail::choose_launch((const void *)kernel_, sizeof...(P), shape_);
    Slots *slots = choice.slots;
    // One entry more than the original reads; the twin reads it as its slots argument.
    void *array[] = {(void *)&args..., (void *)&slots};
    // Like <<<>>>: the error stays for cudaGetLastError() / cudaPeekAtLastError().
    (void)::cudaLaunchKernel(choice.func, shape_.grid, shape_.block, array, shape_.shmem,
                             shape_.stream);
    detail::launched(slots);
  }

private:
  const KernelMap *map_; // null: look the twin up in the registry
  void (*kernel_)(P...);
  const void *twin_;
  detail::LaunchShape shape_;
};

// Registry path, for a `<<<>>>` launch whose callee is defined in another file or is a function
// pointer: `k<<<g, b, s, st>>>(a...)` becomes `cutrace::via(k, g, b, s, st)(a...)`. Runs k's
// registered twin on recorded launches, else k itself.
template <class... P>
KernelLaunch<P...> via(void (*kernel)(P...), dim3 grid, dim3 block, size_t shmem = 0,
                       cudaStream_t stream = 0) {
  return {nullptr, kernel, nullptr, grid, block, shmem, stream};
}

// Static path, for a `<<<>>>` launch whose callee and twin are visible at the site:
// `cutrace::launchPair(cutrace_map::K, K, K_cutrace_traced, g, b, s, st)(a...)`.
template <class... P>
KernelLaunch<P...> launchPair(const KernelMap &map, void (*kernel)(P...),
                              typename detail::TwinOf<P...>::type twin, dim3 grid, dim3 block,
                              size_t shmem = 0, cudaStream_t stream = 0) {
  return {&map, kernel, (const void *)twin, grid, block, shmem, stream};
}

// Replacements for the CUDA launch API, same arguments and results as the CUDA function they
// replace (every overload of cuda_runtime.h). A registered kernel whose launch is recorded runs
// its twin with a new argument array: the caller's pointers plus the slots pointer.

inline cudaError_t launchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                                cudaStream_t stream) {
  const detail::LaunchChoice choice =
      detail::choose_launch(func, detail::kUnknownParams, {grid, block, shmem, stream, false});
  if (choice.slots == nullptr)
    return ::cudaLaunchKernel(func, grid, block, args, shmem, stream);
  Slots *slots = choice.slots;
  detail::ArgsWithSlots with_slots(args, choice.params, &slots);
  const cudaError_t err =
      ::cudaLaunchKernel(choice.func, grid, block, with_slots.data(), shmem, stream);
  detail::launched(slots);
  return err;
}

template <class T>
cudaError_t launchKernel(T *func, dim3 grid, dim3 block, void **args, size_t shmem = 0,
                         cudaStream_t stream = 0) {
  return launchKernel((const void *)func, grid, block, args, shmem, stream);
}

// The twin must fit the grid co-resident as the original does; otherwise the original runs.
inline cudaError_t launchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args,
                                           size_t shmem, cudaStream_t stream) {
  const detail::LaunchChoice choice =
      detail::choose_launch(func, detail::kUnknownParams, {grid, block, shmem, stream, true});
  if (choice.slots == nullptr)
    return ::cudaLaunchCooperativeKernel(func, grid, block, args, shmem, stream);
  Slots *slots = choice.slots;
  detail::ArgsWithSlots with_slots(args, choice.params, &slots);
  const cudaError_t err =
      ::cudaLaunchCooperativeKernel(choice.func, grid, block, with_slots.data(), shmem, stream);
  detail::launched(slots);
  return err;
}

template <class T>
cudaError_t launchCooperativeKernel(T *func, dim3 grid, dim3 block, void **args, size_t shmem = 0,
                                    cudaStream_t stream = 0) {
  return launchCooperativeKernel((const void *)func, grid, block, args, shmem, stream);
}

// The twin gets the same config (grid, block, stream, attributes) and the slots argument.
inline cudaError_t launchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                   void **args) {
  if (config == nullptr)
    return ::cudaLaunchKernelExC(config, func, args);
  const detail::LaunchChoice choice =
      detail::choose_launch(func, detail::kUnknownParams, detail::shape_of(*config));
  if (choice.slots == nullptr)
    return ::cudaLaunchKernelExC(config, func, args);
  Slots *slots = choice.slots;
  detail::ArgsWithSlots with_slots(args, choice.params, &slots);
  const cudaError_t err = ::cudaLaunchKernelExC(config, choice.func, with_slots.data());
  detail::launched(slots);
  return err;
}

// Arguments are converted to the kernel's parameter types as cudaLaunchKernelEx converts them.
template <class... ExpTypes, class... ActTypes>
cudaError_t launchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(ExpTypes...),
                           ActTypes &&...args) {
  return [&](ExpTypes... coerced) {
    detail::LaunchChoice choice{(const void *)kernel, nullptr, 0};
    if (config != nullptr)
      choice = detail::choose_launch((const void *)kernel, sizeof...(ExpTypes),
                                     detail::shape_of(*config));
    Slots *slots = choice.slots;
    void *array[] = {(void *)&coerced..., (void *)&slots};
    const cudaError_t err = ::cudaLaunchKernelExC(config, choice.func, array);
    detail::launched(slots);
    return err;
  }(std::forward<ActTypes>(args)...);
}

// A cudaKernel_t handle cannot be routed: the launch runs unchanged and is not recorded; when the
// handle came from getKernel() of a traced kernel, the launch is counted and reported at exit.
template <class... ActTypes>
cudaError_t launchKernelEx(const cudaLaunchConfig_t *config, const cudaKernel_t kernel,
                           ActTypes &&...args) {
  detail::count_handle_launch(kernel);
  return ::cudaLaunchKernelEx(config, kernel, std::forward<ActTypes>(args)...);
}

// cudaGetKernel, same arguments and result: remembers which kernel the handle names.
inline cudaError_t getKernel(cudaKernel_t *kernel, const void *func) {
  const cudaError_t err = ::cudaGetKernel(kernel, func);
  if (err == cudaSuccess && kernel != nullptr)
    detail::note_handle(*kernel, func);
  return err;
}

template <class T> cudaError_t getKernel(cudaKernel_t *kernel, T *func) {
  return getKernel(kernel, (const void *)func);
}

// cudaFuncSetCacheConfig, same arguments and result: the registered twin gets the same
// preference, so a recorded launch runs with the cache split the original would.
inline cudaError_t funcSetCacheConfig(const void *func, cudaFuncCache config) {
  const cudaError_t err = ::cudaFuncSetCacheConfig(func, config);
  if (const void *twin = detail::registered_twin(func); err == cudaSuccess && twin != nullptr)
    (void)::cudaFuncSetCacheConfig(twin, config);
  return err;
}

template <class T> cudaError_t funcSetCacheConfig(T *func, cudaFuncCache config) {
  return funcSetCacheConfig((const void *)func, config);
}

} // namespace CUTRACE_LAUNCH_STREAM_MODE
} // namespace cutrace

#endif // CUTRACE_LAUNCH_H
