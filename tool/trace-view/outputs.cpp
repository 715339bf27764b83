// Checked, all-or-nothing outputs of the trace-view commands (outputs.h).
#include "outputs.h"

#include "inputs.h"

#include <cstdio>

namespace trace_view {

void check_outputs(const std::vector<std::string> &inputs,
                   const std::vector<NamedOutput> &outputs) {
  std::vector<std::string> paths;
  for (const NamedOutput &o : outputs)
    paths.push_back(o.path);
  const std::optional<cutrace::OutputClash> clash = cutrace::find_output_clash(inputs, paths);
  if (!clash)
    return;
  const std::string what =
      outputs[clash->output].option + " " + cutrace::describe_clash(*clash, inputs, paths);
  switch (clash->why) {
  case cutrace::OutputRefusal::input:
    usage_error(what + ": it would be replaced");
  case cutrace::OutputRefusal::twice:
    usage_error(what + ": " + outputs[clash->other].option + " and " +
                outputs[clash->output].option + " would write one file");
  default:
    usage_error(what);
  }
}

void Outputs::add(const std::string &path, const std::string &contents) {
  if (failed_)
    return;
  if (path == "-")
    std::fflush(stdout); // written to the descriptor at commit, after anything printed before
  if (std::optional<cutrace::OutputFailure> f = set_.add(path, contents)) {
    std::fprintf(stderr, "trace-view: error: %s\n", f->message.c_str());
    failed_ = true;
    return;
  }
  if (path != "-")
    files_.push_back(path);
}

void Outputs::add_streamed(
    const std::string &path,
    const std::function<std::optional<std::string>(const cutrace::OutputSet::Sink &)> &produce) {
  if (failed_)
    return;
  if (path == "-")
    std::fflush(stdout);
  if (std::optional<cutrace::OutputFailure> f = set_.add_streamed(path, produce)) {
    std::fprintf(stderr, "trace-view: error: %s\n", f->message.c_str());
    failed_ = true;
    return;
  }
  if (path != "-")
    files_.push_back(path);
}

bool Outputs::commit(const std::vector<std::string> &also) {
  if (failed_)
    return false;
  std::fflush(stdout);
  if (std::optional<cutrace::OutputFailure> f = set_.commit()) {
    std::fprintf(stderr, "trace-view: error: %s\n", f->message.c_str());
    failed_ = true;
    return false;
  }
  std::vector<std::string> written = files_;
  written.insert(written.end(), also.begin(), also.end());
  for (const std::string &path : written)
    std::fprintf(stderr, "trace-view: wrote %s\n", path.c_str());
  return true;
}

bool write_output(const std::string &path, const std::string &contents) {
  Outputs out;
  out.add(path, contents);
  return out.commit();
}

} // namespace trace_view
