"""examples/torch_extension built by setuptools (docs/torch.md, "Building an extension"):

    PYTORCH_NVCC=cutrace-nvcc python setup.py build_ext --inplace                  # traced
    CUTRACE_MODE=strip PYTORCH_NVCC=cutrace-nvcc python setup.py build_ext --inplace

cutrace.torch.build_args() gives cutrace's include directory, a define naming the mode and, for
the traced build, libcutrace.so with its rpath. SCALE_ADD_SOURCE replaces scale_add.cu (the GPU
script builds from sources rewritten ahead of time)."""
import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

import cutrace.torch

here = os.path.dirname(os.path.abspath(__file__))
kernel = os.environ.get("SCALE_ADD_SOURCE", os.path.join(here, "scale_add.cu"))
args = cutrace.torch.build_args()
args["extra_compile_args"]["nvcc"] += ["-O3", "-arch=sm_90"]
setup(name="scale_add_ext",
      ext_modules=[CUDAExtension("scale_add_ext", [os.path.join(here, "bind.cpp"), kernel], **args)],
      cmdclass={"build_ext": BuildExtension})
