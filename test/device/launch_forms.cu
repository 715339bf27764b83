// Every launch entry point of cutrace/launch.h on a GPU, with hand-written traced twins standing
// in for `trace-rewrite --traced` output (docs/guide.md, "Launches in a traced build"). A launch
// the session records must run the twin with non-null slots; any other launch runs the original
// kernel, as in the plain build. Each kernel leaves a mark: 1 = original, 2 = twin with slots,
// 3 = twin without slots (always wrong), plus a value computed from its arguments.
//
// clang-format off
// Build and run from the repository root (JSON_INCLUDE: a folder holding nlohmann/, e.g. .carry/include):
//   mkdir -p build-device && nvcc -arch=sm_90 -std=c++17 -O2 -Iruntime/include -I${JSON_INCLUDE:-/usr/include} test/device/launch_forms.cu runtime/src/format/*.cpp runtime/src/analysis/*.cpp runtime/src/capture/*.cpp runtime/src/capture/outputs/ctrace_only.cpp -o build-device/launch_forms
//   CUTRACE_OUTPUT=build-device/launch_forms_traces build-device/launch_forms   # recorded launches
//   CUTRACE=0 build-device/launch_forms                                           # every launch plain
// clang-format on
// One PASS/FAIL line per check; exit status 1 when any check failed. The ctest
// `launch_api_compiles_every_launch_form_*` only compiles this file (no GPU in CI).
#include <cutrace/traced.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

// ---- what <file>.trace_map.h would hold: one "hit" record per CTA ----
#define LAUNCH_FORMS_MAP(name)                                                                     \
  inline constexpr cutrace::KernelMap name{                                                        \
      #name, 1, 16, cutrace::Clock::clock64,                                                       \
      R"({"format_version":1,"kernel":")" #name R"(","source":"launch_forms.cu",)"                 \
      R"("max_events":16,"clock":"clock64","groups":[{"index":0,"name":"block","lead":"0"}],)"     \
      R"("lanes":["main"],"sites":[{"id":0,"kind":"record","name":"hit","lane":0,"group":0,)"      \
      R"("loc":"launch_forms.cu:1:1"}],"flows":[]})"};
namespace cutrace_map {
LAUNCH_FORMS_MAP(fill)
LAUNCH_FORMS_MAP(scale)
LAUNCH_FORMS_MAP(with_struct)
LAUNCH_FORMS_MAP(grid_const)
LAUNCH_FORMS_MAP(no_params)
LAUNCH_FORMS_MAP(tmpl)
LAUNCH_FORMS_MAP(big_smem)
LAUNCH_FORMS_MAP(fat_smem)
LAUNCH_FORMS_MAP(coop)
LAUNCH_FORMS_MAP(narrow)
} // namespace cutrace_map

enum Kernel {
  kFill,
  kScale,
  kWithStruct,
  kGridConst,
  kNoParams,
  kTmpl,
  kBigSmem,
  kFatSmem,
  kCoop,
  kNarrow,
  kPlain,
  kKernels
};
__device__ int g_mark[kKernels];
__device__ long long g_value[kKernels];

// The original's mark.
__device__ void mark_original(Kernel k, long long value) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    g_mark[k] = 1;
    g_value[k] = value;
  }
}
// The twin's mark, and one record per CTA into its buffer, as generated code records.
__device__ void mark_twin(Kernel k, long long value, cutrace::Slots *slots) {
  cutrace::Group<16> group(slots, 0, 1, 0);
  group.instant(0, int(blockIdx.x));
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    g_mark[k] = slots != nullptr ? 2 : 3;
    g_value[k] = value;
  }
}

struct Params {
  int a;
  float b;
  double c;
};

// ---- kernels and the twins trace-rewrite --traced would write beside them ----
__global__ void fill(float *out, float v, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = v;
  mark_original(kFill, n * 1000 + (long long)v);
}
__global__ void fill_cutrace_traced(float *out, float v, int n, cutrace::Slots *__cutrace_slots) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = v;
  mark_twin(kFill, n * 1000 + (long long)v, __cutrace_slots);
}
static const bool fill_cutrace_registered = cutrace::registerTwin(
    (const void *)&fill, (const void *)&fill_cutrace_traced, cutrace_map::fill, 3);

__global__ void scale(const float *__restrict__ in, float *__restrict__ out, int n) {
  mark_original(kScale, n + (long long)in[0]);
  out[0] = in[0];
}
__global__ void scale_cutrace_traced(const float *__restrict__ in, float *__restrict__ out, int n,
                                     cutrace::Slots *__cutrace_slots) {
  mark_twin(kScale, n + (long long)in[0], __cutrace_slots);
  out[0] = in[0];
}
static const bool scale_cutrace_registered = cutrace::registerTwin(
    (const void *)&scale, (const void *)&scale_cutrace_traced, cutrace_map::scale, 3);

__global__ void with_struct(Params p, int k) {
  mark_original(kWithStruct, p.a + k + (long long)(p.b + p.c));
}
__global__ void with_struct_cutrace_traced(Params p, int k, cutrace::Slots *__cutrace_slots) {
  mark_twin(kWithStruct, p.a + k + (long long)(p.b + p.c), __cutrace_slots);
}
static const bool with_struct_cutrace_registered =
    cutrace::registerTwin((const void *)&with_struct, (const void *)&with_struct_cutrace_traced,
                          cutrace_map::with_struct, 2);

__global__ void grid_const(const __grid_constant__ Params p) {
  mark_original(kGridConst, p.a + (long long)(p.b + p.c));
}
__global__ void grid_const_cutrace_traced(const __grid_constant__ Params p,
                                          cutrace::Slots *__cutrace_slots) {
  mark_twin(kGridConst, p.a + (long long)(p.b + p.c), __cutrace_slots);
}
static const bool grid_const_cutrace_registered =
    cutrace::registerTwin((const void *)&grid_const, (const void *)&grid_const_cutrace_traced,
                          cutrace_map::grid_const, 1);

__global__ void no_params() { mark_original(kNoParams, 7); }
__global__ void no_params_cutrace_traced(cutrace::Slots *__cutrace_slots) {
  mark_twin(kNoParams, 7, __cutrace_slots);
}
static const bool no_params_cutrace_registered = cutrace::registerTwin(
    (const void *)&no_params, (const void *)&no_params_cutrace_traced, cutrace_map::no_params, 0);

// Template twins are not registered statically: launchPair() registers each instance it launches.
template <class T> __global__ void tmpl(T *out, T v) {
  out[0] = v;
  mark_original(kTmpl, (long long)v);
}
template <class T>
__global__ void tmpl_cutrace_traced(T *out, T v, cutrace::Slots *__cutrace_slots) {
  out[0] = v;
  mark_twin(kTmpl, (long long)v, __cutrace_slots);
}

// Dynamic shared memory beyond the 48 KiB default, granted to the original only.
__global__ void big_smem(float *out) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
  mark_original(kBigSmem, 1);
}
__global__ void big_smem_cutrace_traced(float *out, cutrace::Slots *__cutrace_slots) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
  mark_twin(kBigSmem, 1, __cutrace_slots);
}
static const bool big_smem_cutrace_registered = cutrace::registerTwin(
    (const void *)&big_smem, (const void *)&big_smem_cutrace_traced, cutrace_map::big_smem, 1);

// A twin with 40 KiB more static shared memory than its original: it cannot get the dynamic
// shared memory the original is allowed, so those launches run the original.
__global__ void fat_smem(float *out) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = 1.f;
  out[threadIdx.x] = buf[threadIdx.x];
  mark_original(kFatSmem, 1);
}
__global__ void fat_smem_cutrace_traced(float *out, cutrace::Slots *__cutrace_slots) {
  extern __shared__ float buf[];
  __shared__ float pad[10240];
  pad[threadIdx.x] = 1.f;
  buf[threadIdx.x] = pad[threadIdx.x];
  out[threadIdx.x] = buf[threadIdx.x];
  mark_twin(kFatSmem, 1, __cutrace_slots);
}
static const bool fat_smem_cutrace_registered = cutrace::registerTwin(
    (const void *)&fat_smem, (const void *)&fat_smem_cutrace_traced, cutrace_map::fat_smem, 1);

__global__ void coop(int *counter) {
  if (threadIdx.x == 0)
    atomicAdd(counter, 1);
  mark_original(kCoop, gridDim.x);
}
__global__ void coop_cutrace_traced(int *counter, cutrace::Slots *__cutrace_slots) {
  if (threadIdx.x == 0)
    atomicAdd(counter, 1);
  mark_twin(kCoop, gridDim.x, __cutrace_slots);
}
static const bool coop_cutrace_registered = cutrace::registerTwin(
    (const void *)&coop, (const void *)&coop_cutrace_traced, cutrace_map::coop, 1);

// A twin limited to 64 threads per block: a launch of 128 threads runs the original.
__global__ void narrow(int *x) { mark_original(kNarrow, x == nullptr ? 0 : 1); }
__global__ void __launch_bounds__(64)
    narrow_cutrace_traced(int *x, cutrace::Slots *__cutrace_slots) {
  mark_twin(kNarrow, x == nullptr ? 0 : 1, __cutrace_slots);
}
static const bool narrow_cutrace_registered = cutrace::registerTwin(
    (const void *)&narrow, (const void *)&narrow_cutrace_traced, cutrace_map::narrow, 1);

// No twin at all.
__global__ void plain(int v) { mark_original(kPlain, v); }

// ---- checks ----
int failures = 0;
bool traced = true; // false under CUTRACE=0
int expected_files = 0;

void check(bool ok, const std::string &what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  if (!ok)
    ++failures;
}

void reset() {
  static const int zero_marks[kKernels] = {};
  static const long long zero_values[kKernels] = {};
  cudaMemcpyToSymbol(g_mark, zero_marks, sizeof zero_marks);
  cudaMemcpyToSymbol(g_value, zero_values, sizeof zero_values);
}

// `recorded`: the launch is expected to run the twin when tracing is on.
void expect(const char *form, Kernel k, bool recorded, long long value) {
  const cudaError_t launch_err = cudaGetLastError();
  const cudaError_t sync_err = cudaDeviceSynchronize();
  int marks[kKernels] = {};
  long long values[kKernels] = {};
  cudaMemcpyFromSymbol(marks, g_mark, sizeof marks);
  cudaMemcpyFromSymbol(values, g_value, sizeof values);
  const int want = recorded && traced ? 2 : 1;
  if (want == 2)
    ++expected_files;
  char line[512];
  std::snprintf(line, sizeof line,
                "%-58s ran %s (mark %d, value %lld; want mark %d, value %lld; %s)", form,
                marks[k] == 1   ? "original"
                : marks[k] == 2 ? "twin"
                                : "?",
                marks[k], values[k], want, value,
                cudaGetErrorString(launch_err != cudaSuccess ? launch_err : sync_err));
  check(launch_err == cudaSuccess && sync_err == cudaSuccess && marks[k] == want &&
            values[k] == value,
        line);
  reset();
}

// `n` argument pointers at the very end of a page whose next page is unreadable: reading one
// entry past the array faults.
void **guarded_args(unsigned n) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  char *p = static_cast<char *>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (p == MAP_FAILED || mprotect(p + page, page, PROT_NONE) != 0) {
    std::perror("mmap");
    std::exit(2);
  }
  return reinterpret_cast<void **>(p + page) - n;
}

size_t count_files(const std::string &dir) {
  std::error_code ec;
  size_t n = 0;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    n += it->path().extension() == ".ctrace";
  return n;
}

int main() {
  const char *on = std::getenv("CUTRACE");
  traced = !(on != nullptr && std::strcmp(on, "0") == 0);
  const char *out_env = std::getenv("CUTRACE_OUTPUT");
  const std::string out_dir = out_env != nullptr && *out_env ? out_env : "debug/";
  int devices = 0;
  if (cudaError_t err = cudaGetDeviceCount(&devices); err != cudaSuccess || devices == 0) {
    std::printf("FAIL no CUDA device: %s\n", cudaGetErrorString(err));
    return 1;
  }
  const size_t files_before = count_files(out_dir);
  std::printf("launch_forms: tracing %s, output %s\n", traced ? "on" : "off (CUTRACE=0)",
              out_dir.c_str());

  float *buf = nullptr, *buf2 = nullptr;
  int *counter = nullptr, *ibuf = nullptr;
  double *dbuf = nullptr;
  cudaMalloc(&buf, 1 << 20);
  cudaMalloc(&buf2, 1 << 20);
  cudaMalloc(&counter, sizeof(int));
  cudaMalloc(&ibuf, 64);
  cudaMalloc(&dbuf, 64);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  reset();
  float one = 3.f;
  cudaMemcpy(buf2, &one, sizeof one, cudaMemcpyHostToDevice);

  // <<<>>> replacements, registry path and static path.
  int n = 100;
  cutrace::via(fill, 2, 64)(buf, 5.f, n);
  expect("via(fill, int, int)", kFill, true, 100005);
  void (*fill_ptr)(float *, float, int) = fill;
  cutrace::via(fill_ptr, dim3(2), dim3(64), 0, stream)(buf, 6, n); // int -> float, as <<<>>>
  expect("via(function pointer, dim3, dim3, 0, stream)", kFill, true, 100006);
  cutrace::launchPair(cutrace_map::fill, fill, fill_cutrace_traced, uint3{2, 1, 1},
                      uint3{64, 1, 1})(buf, 7.f, n);
  expect("launchPair(fill, uint3, uint3)", kFill, true, 100007);
  cutrace::via(scale, 1, 32)(buf2, buf, 4);
  expect("via(scale) with __restrict__ params", kScale, true, 7);
  cutrace::launchPair(cutrace_map::with_struct, with_struct, with_struct_cutrace_traced, 1,
                      32)({1, 2.f, 3.0}, 10);
  expect("launchPair(with_struct) with a braced struct argument", kWithStruct, true, 16);
  cutrace::via(grid_const, 1, 32, 0, stream)(Params{4, 5.f, 6.0});
  expect("via(grid_const) __grid_constant__ param", kGridConst, true, 15);
  cutrace::via(no_params, 1, 32)();
  expect("via(no_params)", kNoParams, true, 7);
  cutrace::launchPair(cutrace_map::no_params, no_params, no_params_cutrace_traced, 1, 32)();
  expect("launchPair(no_params)", kNoParams, true, 7);
  cutrace::via(tmpl<double>, 1, 32)(dbuf, 8.0);
  expect("via(tmpl<double>) before any launchPair: not registered", kTmpl, false, 8);
  cutrace::launchPair(cutrace_map::tmpl, tmpl<int>, tmpl_cutrace_traced<int>, 1, 32)(ibuf, 9);
  expect("launchPair(tmpl<int>) explicit template arguments", kTmpl, true, 9);
  cutrace::via(tmpl<int>, 1, 32)(ibuf, 10);
  expect("via(tmpl<int>) after launchPair registered it", kTmpl, true, 10);
  cutrace::via(plain, 1, 32)(11);
  expect("via(plain) without a twin", kPlain, false, 11);

  // CUDA launch API replacements; argument arrays of exactly the kernel's parameter count.
  {
    void **args = guarded_args(3);
    float v = 12.f;
    args[0] = &buf, args[1] = &v, args[2] = &n;
    cutrace::launchKernel(fill, 2, 64, args);
    expect("launchKernel(fill, g, b, args[3]) template, defaults", kFill, true, 100012);
    v = 13.f;
    cutrace::launchKernel((const void *)fill, dim3(2), dim3(64), args, 0, stream);
    expect("launchKernel((const void*)fill, ..., 0, stream) C form", kFill, true, 100013);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(2);
    cfg.blockDim = dim3(64);
    cfg.stream = stream;
    v = 14.f;
    cutrace::launchKernelExC(&cfg, (const void *)fill, args);
    expect("launchKernelExC(&cfg, fill, args[3])", kFill, true, 100014);
    cutrace::launchKernelEx(&cfg, fill, buf, 15, n); // int -> float, as cudaLaunchKernelEx
    expect("launchKernelEx(&cfg, fill, a...) template", kFill, true, 100015);
    cutrace::launchKernelEx(&cfg, no_params);
    expect("launchKernelEx(&cfg, no_params)", kNoParams, true, 7);
    cudaKernel_t handle = nullptr;
    if (cudaGetKernel(&handle, fill) == cudaSuccess) {
      cutrace::launchKernelEx(&cfg, handle, buf, 16.f, n);
      expect("launchKernelEx(&cfg, cudaKernel_t, a...): runs unrecorded", kFill, false, 100016);
    }
    cutrace::launchKernel(no_params, 1, 32, nullptr);
    expect("launchKernel(no_params, g, b, nullptr)", kNoParams, true, 7);

    void **coop_args = guarded_args(1);
    coop_args[0] = &counter;
    cudaMemset(counter, 0, sizeof(int));
    cutrace::launchCooperativeKernel(coop, 4, 64, coop_args);
    expect("launchCooperativeKernel(coop, g, b, args[1])", kCoop, true, 4);
    cutrace::launchCooperativeKernel((const void *)coop, dim3(4), dim3(64), coop_args, 0, stream);
    expect("launchCooperativeKernel((const void*)coop, ..., stream)", kCoop, true, 4);
    int blocks = 0;
    cudaMemcpy(&blocks, counter, sizeof blocks, cudaMemcpyDeviceToHost);
    check(blocks == 8, "cooperative launches ran 8 blocks in all (" + std::to_string(blocks) + ")");
  }

  // Attributes set on the original reach the twin; limits only the twin has fall back.
  {
    const int big = 160 * 1024;
    cudaFuncSetAttribute(big_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, big);
    cutrace::via(big_smem, 1, 256, big)(buf);
    expect("via(big_smem) with 160 KiB dynamic shared memory", kBigSmem, true, 1);
    cutrace::launchPair(cutrace_map::big_smem, big_smem, big_smem_cutrace_traced, 1, 256, big,
                        stream)(buf);
    expect("launchPair(big_smem) with 160 KiB dynamic shared memory", kBigSmem, true, 1);
    const int fat = 200 * 1024; // + the twin's 40 KiB static > the 227 KiB an H200 block can have
    cudaFuncSetAttribute(fat_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, fat);
    cutrace::via(fat_smem, 1, 256, fat)(buf);
    expect("via(fat_smem): twin cannot get 200 KiB, original ran", kFatSmem, false, 1);
    cutrace::via(narrow, 1, 128)(ibuf);
    expect("via(narrow) 128 threads: twin allows 64, original ran", kNarrow, false, 1);
    cutrace::via(narrow, 1, 64)(ibuf);
    expect("via(narrow) 64 threads", kNarrow, true, 1);
  }

  // Errors stay where <<<>>> leaves them.
  {
    check(cudaPeekAtLastError() == cudaSuccess, "no CUDA error left behind by recorded launches");
    fill<<<1, 2048>>>(buf, 1.f, n);
    const cudaError_t plain_err = cudaGetLastError();
    cutrace::via(fill, 1, 2048)(buf, 1.f, n);
    const cudaError_t via_err = cudaPeekAtLastError();
    check(plain_err != cudaSuccess && via_err == plain_err,
          std::string("via(fill, 1, 2048) leaves <<<>>>'s error for cudaGetLastError: ") +
              cudaGetErrorString(via_err));
    const cudaError_t second = cudaGetLastError();
    check(second == via_err, "cudaGetLastError still reports it after cudaPeekAtLastError");
    void *args[3] = {&buf, &one, &n};
    check(cutrace::launchKernel(fill, 1, 2048, args) == plain_err,
          "launchKernel returns the plain launch's error");
    (void)cudaGetLastError();
  }

  // disable(): registered kernels run their originals.
  if (traced) {
    cutrace::disable();
    traced = false;
    cutrace::via(fill, 2, 64)(buf, 17.f, n);
    expect("after disable(): via(fill)", kFill, true, 100017);
    cutrace::launchPair(cutrace_map::no_params, no_params, no_params_cutrace_traced, 1, 32)();
    expect("after disable(): launchPair(no_params)", kNoParams, true, 7);
    void *args[3] = {&buf, &one, &n};
    cutrace::launchKernel(fill, 2, 64, args);
    expect("after disable(): launchKernel(fill)", kFill, true, 100003);
    cutrace::enable();
    traced = true;
  }

  cutrace::flush();
  const size_t written = count_files(out_dir) - files_before;
  check(written == size_t(expected_files),
        "flush wrote one .ctrace per recorded launch: " + std::to_string(written) + " of " +
            std::to_string(expected_files));
  std::printf("launch_forms: %s (%d failed)\n", failures == 0 ? "PASS" : "FAIL", failures);
  return failures == 0 ? 0 : 1;
}
