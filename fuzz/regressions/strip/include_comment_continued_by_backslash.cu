#include "cutrace/trace.h" // note \
TRACE_RECORD("a");
