// The library's umbrella header: nothing of its own, but it includes headers that are copied, so
// it is copied too (its copy includes theirs).
#pragma once
#include <tile/adapter.h>
#include <tile/launch.h>
