// The module of examples/torch_extension built by setup.py and by torch.utils.cpp_extension.load.
#include "glue.h"

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale_add", &scale_add); }
