__global__ void k() {
  TRACE_RECORD("a");#include "cutrace/trace.h"
}
