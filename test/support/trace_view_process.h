// Runs the trace-view binary under test as a user would (a shell command), capturing its exit
// status, stdout and stderr through files in the test's folder.
#ifndef CUTRACE_TEST_SUPPORT_TRACE_VIEW_PROCESS_H
#define CUTRACE_TEST_SUPPORT_TRACE_VIEW_PROCESS_H

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace cutrace::test_support {

struct ProcessResult {
  int status;
  std::string out, err;
};

inline std::string read_whole_file(const std::string &file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `trace_view ARGS` with stdout and stderr in DIR/stdout and DIR/stderr; status -1 when the
// process did not exit normally.
inline ProcessResult run_trace_view(const std::string &trace_view, const std::string &args,
                                    const std::string &dir) {
  const std::string out = dir + "/stdout", err = dir + "/stderr";
  const std::string cmd = "'" + trace_view + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int rc = std::system(cmd.c_str());
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, read_whole_file(out), read_whole_file(err)};
}

} // namespace cutrace::test_support

#endif // CUTRACE_TEST_SUPPORT_TRACE_VIEW_PROCESS_H
