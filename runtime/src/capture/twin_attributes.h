// Whether a traced twin can run a launch its original can: the function attributes the user set
// on the original (cudaFuncSetAttribute) are copied onto the twin, then the twin's own limits
// (threads per block, dynamic shared memory, co-residency) are checked against the launch.
#ifndef CUTRACE_SRC_TWIN_ATTRIBUTES_H
#define CUTRACE_SRC_TWIN_ATTRIBUTES_H

#include <cutrace/launch.h>

#include <mutex>
#include <string>
#include <vector>

namespace cutrace {

// The twin's attributes on one device, after the original's were last copied onto it.
struct MirroredAttributes {
  bool valid = false;
  cudaFuncAttributes original = {}; // the original's, as last copied
  cudaFuncAttributes twin = {};     // the twin's, after that copy
  int multiprocessors = 0;          // of this device; 0 until a cooperative launch asks
  std::string failure;              // why the copy failed; kept until the original's change
};

// Per-pair cache, refreshed on each recorded launch with one cudaFuncGetAttributes on the
// original; the twin is queried and set only when the original's attributes changed.
class TwinAttributes {
public:
  TwinAttributes(const void *original, const void *twin) : original_(original), twin_(twin) {}

  enum class Verdict {
    twin,               // launch the twin
    original,           // the original cannot run it either: launch it, its error is the plain one
    original_with_note, // only the twin cannot: launch the original and say why (`why`)
  };
  // Leaves no CUDA error of its own behind for the caller's cudaGetLastError().
  Verdict check(const detail::LaunchShape &shape, std::string &why);

private:
  Verdict check_locked(const detail::LaunchShape &shape, std::string &why);
  // Copies the original's settable attributes onto the twin and reads the twin's back into
  // m.twin; on failure, says why in m.failure.
  void mirror(MirroredAttributes &m, const cudaFuncAttributes &original);

  const void *original_, *twin_;
  std::mutex mu_;
  std::vector<MirroredAttributes> devices_; // indexed by device ordinal
};

} // namespace cutrace

#endif // CUTRACE_SRC_TWIN_ATTRIBUTES_H
