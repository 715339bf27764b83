// EXPECT: 10:5: error: annotations in 'operator+' are not supported: its calls cannot be sent to a traced twin (only named functions and operator() can); call a member function holding them from it
// Only operator() has a twin (cutrace_traced_call): a call of another operator is written as an
// expression (`a + b`), which the traced build cannot send to a twin.
#include <cutrace/trace.h>

struct Vec {
  float x, y;
  __device__ Vec operator+(Vec o) const {
    float sum = x + o.x;
    TRACE_RECORD("add", (int)sum);
    return {sum, y + o.y};
  }
};

__global__ void add(Vec *out) { out[0] = out[1] + out[2]; }
