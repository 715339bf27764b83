// Wrappers that neither hold annotations nor are called here: a kernel of launcher.h reaches
// Work's annotations only through them. The template's call depends on its parameter and is
// compiled for the device only (FlashAttention-3's enable_sm90); the class's call is plain.
#pragma once
template <class Kernel>
struct only_on_device : Kernel {
  template <class... Args>
  __device__ void operator()(Args &&...args) {
#if defined(__CUDA_ARCH__)
    Kernel::operator()(static_cast<Args &&>(args)...);
#endif
  }
};

struct Forward : Work {
  __device__ void operator()(Params const &p) { Work::operator()(p); }
};
