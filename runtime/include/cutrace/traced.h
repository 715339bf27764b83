// What a file rewritten by `trace-rewrite --traced` includes in place of <cutrace/trace.h>:
// the device recorder its kernels call and the host runtime its launch sites call (launch.h).
#ifndef CUTRACE_TRACED_H
#define CUTRACE_TRACED_H

#include <cutrace/clock_probe.h>
#include <cutrace/marker_probe.h>
#include <cutrace/device.h>
#include <cutrace/device_auto.h>
#include <cutrace/host.h>
#include <cutrace/launch.h>

#endif // CUTRACE_TRACED_H
