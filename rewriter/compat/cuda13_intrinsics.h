// Declarations CUDA 13 keeps in headers Clang 19's CUDA wrapper does not include: the
// cache-hinted loads and stores (__ldcs, __stcs, ...) of sm_32_intrinsics.h. Parse only.
#pragma once
#if defined(__CUDA__)
#define CUTRACE_COMPAT_LOADS_(T)                                                                   \
  __device__ T __ldcg(const T *);                                                                  \
  __device__ T __ldca(const T *);                                                                  \
  __device__ T __ldcs(const T *);                                                                  \
  __device__ T __ldlu(const T *);                                                                  \
  __device__ T __ldcv(const T *);                                                                  \
  __device__ void __stwb(T *, T);                                                                  \
  __device__ void __stcg(T *, T);                                                                  \
  __device__ void __stcs(T *, T);                                                                  \
  __device__ void __stwt(T *, T);
CUTRACE_COMPAT_LOADS_(char)
CUTRACE_COMPAT_LOADS_(signed char)
CUTRACE_COMPAT_LOADS_(short)
CUTRACE_COMPAT_LOADS_(int)
CUTRACE_COMPAT_LOADS_(long)
CUTRACE_COMPAT_LOADS_(long long)
CUTRACE_COMPAT_LOADS_(unsigned char)
CUTRACE_COMPAT_LOADS_(unsigned short)
CUTRACE_COMPAT_LOADS_(unsigned int)
CUTRACE_COMPAT_LOADS_(unsigned long)
CUTRACE_COMPAT_LOADS_(unsigned long long)
CUTRACE_COMPAT_LOADS_(float)
CUTRACE_COMPAT_LOADS_(double)
CUTRACE_COMPAT_LOADS_(char2)
CUTRACE_COMPAT_LOADS_(char4)
CUTRACE_COMPAT_LOADS_(short2)
CUTRACE_COMPAT_LOADS_(short4)
CUTRACE_COMPAT_LOADS_(int2)
CUTRACE_COMPAT_LOADS_(int4)
CUTRACE_COMPAT_LOADS_(longlong2)
CUTRACE_COMPAT_LOADS_(uchar2)
CUTRACE_COMPAT_LOADS_(uchar4)
CUTRACE_COMPAT_LOADS_(ushort2)
CUTRACE_COMPAT_LOADS_(ushort4)
CUTRACE_COMPAT_LOADS_(uint2)
CUTRACE_COMPAT_LOADS_(uint4)
CUTRACE_COMPAT_LOADS_(ulonglong2)
CUTRACE_COMPAT_LOADS_(float2)
CUTRACE_COMPAT_LOADS_(float4)
CUTRACE_COMPAT_LOADS_(double2)
#undef CUTRACE_COMPAT_LOADS_

// nvcc's builtin traits for extended lambdas, which libcu++ calls in host code once __NVCC__ and
// __CUDACC_EXTENDED_LAMBDA__ are defined (the parse defines them as nvcc does). A Clang parse
// has no extended-lambda closure types, so each answers false.
#define __nv_is_extended_device_lambda_closure_type(...) false
#define __nv_is_extended_host_device_lambda_closure_type(...) false
#define __nv_is_extended_device_lambda_with_preserved_return_type(...) false

// nvcc's headers give host code a global isfinite/isinf/isnan; with clang's CUDA wrapper the
// global names are the __device__ overloads only, so host and __host__ __device__ code calling
// `isfinite(x)` fails to resolve. The standard ones (constexpr, hence host and device) fill in.
#include <cmath>
using std::isfinite;
using std::isinf;
using std::isnan;

// Surface object reads and writes (surface_indirect_functions.h), which clang's CUDA wrapper does
// not include: declared in the two forms nvcc's header offers (into a pointer, or returned).
#define CUTRACE_COMPAT_SURFACE_(Name, ...)                                                         \
  template <class T>                                                                               \
  __device__ void Name##read(T *, cudaSurfaceObject_t, __VA_ARGS__,                                \
                             cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);                      \
  template <class T>                                                                               \
  __device__ T Name##read(cudaSurfaceObject_t, __VA_ARGS__,                                        \
                          cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);                         \
  template <class T>                                                                               \
  __device__ void Name##write(T, cudaSurfaceObject_t, __VA_ARGS__,                                 \
                              cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);
CUTRACE_COMPAT_SURFACE_(surf1D, int)
CUTRACE_COMPAT_SURFACE_(surf2D, int, int)
CUTRACE_COMPAT_SURFACE_(surf3D, int, int, int)
CUTRACE_COMPAT_SURFACE_(surf1DLayered, int, int)
CUTRACE_COMPAT_SURFACE_(surf2DLayered, int, int, int)
CUTRACE_COMPAT_SURFACE_(surfCubemap, int, int, int)
CUTRACE_COMPAT_SURFACE_(surfCubemapLayered, int, int, int)
#undef CUTRACE_COMPAT_SURFACE_
#endif
