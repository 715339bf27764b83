// An overload of helper whose body starts on line 5, as two.h's does.
#pragma once
#include <cutrace/trace.h>
__device__ void helper(int *x)
{
  TRACE_RANGE("int");
  x[0] = 1;
}
