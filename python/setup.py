"""`pip install ./python` from a cutrace checkout (docs/python.md, "Building"): the extension
module is the CMake target cutrace_python of the checkout this folder is in, built with the
Python that runs pip, and put beside the package's .py files."""
import os
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

here = os.path.dirname(os.path.abspath(__file__))
checkout = os.path.dirname(here)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not os.path.exists(os.path.join(checkout, "runtime", "CMakeLists.txt")):
            sys.exit("cutrace: %s is not inside a cutrace checkout (pip must build in place: "
                     "pip >= 21.3)" % here)
        build = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        subprocess.check_call(["cmake", "-S", checkout, "-B", build, "-DCUTRACE_BUILD_TOOLS=OFF",
                               "-DCUTRACE_BUILD_TESTS=OFF", "-DCMAKE_BUILD_TYPE=Release",
                               "-DPython3_EXECUTABLE=" + sys.executable])
        subprocess.check_call(["cmake", "--build", build, "--target", "cutrace_python"])
        built = os.path.join(build, "python", "cutrace")
        module = [f for f in os.listdir(built) if f.startswith("_cutrace") and f.endswith(".so")]
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        self.copy_file(os.path.join(built, module[0]), target)


setup(ext_modules=[Extension("cutrace._cutrace", sources=[])], cmdclass={"build_ext": CMakeBuild})
