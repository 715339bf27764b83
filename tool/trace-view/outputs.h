// How every trace-view command writes: its outputs are checked before any input is read (never
// an input, never named twice, never a directory or a symbolic link to nothing), then written all
// or nothing through the output code trace-rewrite uses (cutrace/output_files.h, docs/cli.md).
#ifndef CUTRACE_TRACE_VIEW_OUTPUTS_H
#define CUTRACE_TRACE_VIEW_OUTPUTS_H

#include <cutrace/output_files.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace trace_view {

// An output and the option that names it ("--json").
struct NamedOutput {
  std::string option;
  std::string path;
};

// Exit 2 ("trace-view: error: --json 'in.ctrace' is an input file: it would be replaced") when
// an output cannot be written by a run reading `inputs`. Unnamed outputs are left out.
void check_outputs(const std::vector<std::string> &inputs, const std::vector<NamedOutput> &outputs);

// The outputs of one command: each made in memory is handed over at once (a regular file goes to
// a temporary file beside it), and commit() puts all of them in place, or none.
class Outputs {
public:
  void add(const std::string &path, const std::string &contents);
  // An output made piece by piece (cutrace::OutputSet::add_streamed): a file is written as
  // `produce` hands it pieces; `produce` returns why it could not finish, if it could not.
  void add_streamed(
      const std::string &path,
      const std::function<std::optional<std::string>(const cutrace::OutputSet::Sink &)> &produce);
  // Says "trace-view: wrote PATH" for each file (and for each of `also`, written elsewhere);
  // false, with the message, when an output could not be written.
  bool commit(const std::vector<std::string> &also = {});
  bool failed() const { return failed_; }

private:
  cutrace::OutputSet set_;
  std::vector<std::string> files_;
  bool failed_ = false;
};

// One output: `contents` to `path` ('-': stdout); false (and a message) when it cannot be written.
bool write_output(const std::string &path, const std::string &contents);

} // namespace trace_view

#endif
