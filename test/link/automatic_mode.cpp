// The smallest automatic-mode program: one launch hook and a flush, as a rewritten launch site
// and program exit call them. Only linked, never run (check_capture.sh reads its symbols).
#include <cutrace/host.h>

int main() {
  const cutrace::KernelMap map{"kernel", 1, 16, cutrace::Clock::clock64, "{}"};
  if (cutrace::launch(map, dim3(1), dim3(32)) != nullptr)
    cutrace::flush();
  return 0;
}
