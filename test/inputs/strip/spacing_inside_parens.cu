// Strip rule: unusual spacing inside and around the annotation's parentheses.
#include <cutrace/trace.h>
__global__ void spacing(int *x) {
  TRACE_RECORD( "a" , 1 , "b" );
  TRACE_RANGE ("spaced_name");
  int i = threadIdx.x;
  TRACE_RECORD	(	"tabs"	)	;
  x[i] = i * i;
  TRACE_RECORD(
  "dangling"
  )
  ;
}
