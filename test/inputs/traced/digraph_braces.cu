%:include <cutrace/trace.h>
// Digraphs: `<%` `%>` braces, `<:` `:>` brackets, `%:` for '#'.

__global__ void digraphs(int *x) <%
  TRACE_GROUP("warp0", 0);
  TRACE_RECORD("start", x<:0:>);
  if (x<:1:>) <%
    TRACE_RANGE("inner");
    x<:2:> = 1;
  %>
%>

void run(int *x) { digraphs<<<1, 32>>>(x); }
