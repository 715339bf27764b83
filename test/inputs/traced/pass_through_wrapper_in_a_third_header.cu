// A kernel reaches annotated code through a pass-through wrapper written in a third header,
// which nothing there calls: the wrapper gets a twin all the same, and its base-qualified call
// `Kernel::operator()(args...)` goes to the base's twin (docs/design.md, "Calls across files").
#include "pass_through_wrapper_in_a_third_header/launcher.h"
#include "pass_through_wrapper_in_a_third_header/work.h"
#include "pass_through_wrapper_in_a_third_header/wrapper.h"

int main() {
  Work::Params p{nullptr};
  run_op<only_on_device<Work>><<<1, 64>>>(p);
  run_op<Forward><<<1, 64>>>(p);
  return 0;
}
