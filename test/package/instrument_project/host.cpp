// Host code that differs between builds: CUTRACE_TRACED is defined for the whole target in a
// traced build (this .cpp too) and never in a stripped one.
#include <cstdio>

void launch_fill(int *out, int n);
void launch_scale(float *x, int n);

#ifdef CUTRACE_TRACED
static const char *build_kind = "cutrace build: traced";
#else
static const char *build_kind = "cutrace build: plain";
#endif

int main() {
  std::puts(build_kind);
  launch_fill(nullptr, 0);
  launch_scale(nullptr, 0);
  return 0;
}
