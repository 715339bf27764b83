# The scratch folder of a check script, printed: $CUTRACE_TEST_SCRATCH when it is set, emptied
# first, else a new temporary folder named after <name>. test/CMakeLists.txt gives each test that
# builds with nvcc a folder of its own there, named the same from run to run, so the compiles a
# rerun repeats are read back from ccache: some paths reach the compile as written (the traced
# sources' #line directives, CMake's `-isystem=PATH`) and a new name each time would miss.
# The caller removes it at exit, as before.
scratch_dir() { # <name>
  if [[ -n ${CUTRACE_TEST_SCRATCH:-} ]]; then
    rm -rf "$CUTRACE_TEST_SCRATCH" && mkdir -p "$CUTRACE_TEST_SCRATCH" &&
      realpath "$CUTRACE_TEST_SCRATCH"
  else
    mktemp -d "${TMPDIR:-/tmp}/cutrace-$1.XXXXXX"
  fi
}
