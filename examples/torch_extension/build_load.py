"""examples/torch_extension built by torch.utils.cpp_extension.load (JIT): the same sources as
setup.py, the module named `scale_add_jit_<mode>` so each mode has its own cached .so.

usage: PYTORCH_NVCC=cutrace-nvcc [CUTRACE_MODE=strip] python build_load.py BUILD-DIR
prints the path of the .so it built"""
import os
import sys

from torch.utils.cpp_extension import load

import cutrace.torch

here = os.path.dirname(os.path.abspath(__file__))
kernel = os.environ.get("SCALE_ADD_SOURCE", os.path.join(here, "scale_add.cu"))
jit = cutrace.torch.jit_args("scale_add_jit")
jit["extra_cuda_cflags"] = jit["extra_cuda_cflags"] + ["-O3", "-arch=sm_90"]
os.makedirs(sys.argv[1], exist_ok=True)
module = load(sources=[os.path.join(here, "bind.cpp"), kernel], build_directory=sys.argv[1],
              verbose=False, **jit)
print(module.__file__)
