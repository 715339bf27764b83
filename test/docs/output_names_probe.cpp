// Prints the names of the files a traced program's automatic mode writes at exit, as the runtime
// itself names them: a run file written by RunFile in the folder given, rendered into the default
// formats beside it. test/docs/check_output_names.py compares the docs' statements with them.
#include "capture/outputs.h"
#include "capture/run_file.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: output_names_probe <empty folder>\n");
    return 2;
  }
  std::string run_path;
  {
    cutrace::RunFile run(argv[1], "all", "*");
    run.add_device(0, R"({"index":0,"name":"probe","aligned":false})");
    run_path = run.finish(R"({"kernels":[]})");
  }
  if (run_path.empty())
    return 1;
  cutrace::detail::write_run_outputs(run_path, cutrace::output_formats("html,json,perfetto", false),
                                     /*in_background=*/false);
  std::printf("program %s\npid %ld\n", cutrace::program_name().c_str(),
              static_cast<long>(::getpid()));
  for (const auto &entry : std::filesystem::directory_iterator(argv[1]))
    std::printf("file %s\n", entry.path().filename().c_str());
  return 0;
}
