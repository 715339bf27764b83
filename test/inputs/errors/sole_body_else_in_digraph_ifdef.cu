// EXPECT: 11:5: annotation may not be the sole, unbraced body of 'else'
#include <cutrace/trace.h>

__global__ void k(int *x) <%
  if (x[0])
    x[1] = 1;
  else
%:ifndef A
    x[2] = 2;
%:else
    TRACE_RECORD("a");
%:endif
  x[3] = 3;
%>
