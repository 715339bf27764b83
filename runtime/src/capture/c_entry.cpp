// C entry points of libcutrace.so, for callers without C++ linkage: Python's ctypes
// (cutrace.torch.flush, docs/torch.md).
#include <cutrace/host.h>

extern "C" {
__attribute__((visibility("default"))) void cutrace_flush(void) { cutrace::flush(); }
}
