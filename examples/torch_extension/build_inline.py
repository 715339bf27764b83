"""examples/torch_extension built by torch.utils.cpp_extension.load_inline: glue.h as the C++
source, the kernel file's text as the CUDA source, the module named `scale_add_inline_<mode>`.

usage: python build_inline.py BUILD-DIR [KERNEL.cu]    (default: scale_add.cu; the GPU script
passes a source rewritten ahead of time)
prints the path of the .so it built"""
import os
import sys

from torch.utils.cpp_extension import load_inline

import cutrace.torch

here = os.path.dirname(os.path.abspath(__file__))
kernel = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "scale_add.cu")
jit = cutrace.torch.jit_args("scale_add_inline")
jit["extra_cuda_cflags"] = jit["extra_cuda_cflags"] + ["-O3", "-arch=sm_90"]
jit["extra_include_paths"] = jit["extra_include_paths"] + [os.path.dirname(os.path.abspath(kernel))]
with open(os.path.join(here, "glue.h")) as f:
    glue = f.read().replace("#pragma once\n", "")
with open(kernel) as f:
    cuda = f.read()
os.makedirs(sys.argv[1], exist_ok=True)
module = load_inline(cpp_sources=[glue], cuda_sources=[cuda], functions=["scale_add"],
                     build_directory=sys.argv[1], verbose=False, **jit)
print(module.__file__)
