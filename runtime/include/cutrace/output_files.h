// How trace-rewrite and trace-view write their outputs (docs/cli.md, "Outputs"): checked before
// any work, then all or nothing. A regular file (new, existing, or reached through a symbolic
// link, which stays a link) is written to a temporary file beside it and renamed into place when
// every output of the run is written; "-" is stdout; FIFOs, devices and sockets are written to,
// never replaced. Pure C++17 and POSIX, in cutrace_format.
#ifndef CUTRACE_OUTPUT_FILES_H
#define CUTRACE_OUTPUT_FILES_H

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cutrace {

// Why an output cannot be written, known before any work.
enum class OutputRefusal {
  directory,     // the output is a directory
  input,         // the output is an input of the run (same device and inode, or same path)
  twice,         // two outputs are one file (same device and inode, or same path)
  dangling_link, // a symbolic link to nothing: writing would replace the link
  link_loop,     // a symbolic link that never reaches a file
};

struct OutputClash {
  OutputRefusal why;
  size_t output = 0; // the refused output, an index into the outputs
  size_t other = 0;  // input: an index into the inputs; twice: the earlier output
};

// The first output that cannot be written by a run reading `inputs`; "-" (stdout) is never
// refused. With `outputs_may_be_inputs` (rewriting in place) an output may be an input.
std::optional<OutputClash> find_output_clash(const std::vector<std::string> &inputs,
                                             const std::vector<std::string> &outputs,
                                             bool outputs_may_be_inputs = false);

// "'x' is a directory", "'x' is the input 'y'", ...: one phrase for a message.
std::string describe_clash(const OutputClash &clash, const std::vector<std::string> &inputs,
                           const std::vector<std::string> &outputs);

struct OutputFailure {
  std::string path;    // the output that could not be written
  std::string message; // "cannot write 'x': reason"
};

// The outputs of one run, written all or nothing. Destroying an uncommitted set removes its
// temporary files, and so does SIGINT, SIGTERM or SIGHUP while they exist.
class OutputSet {
public:
  OutputSet() = default;
  OutputSet(const OutputSet &) = delete;
  OutputSet &operator=(const OutputSet &) = delete;
  ~OutputSet();

  // A regular file is written now, to a temporary file beside it (missing parent folders are
  // created); stdout and special files keep `data` until commit(). On a failure every temporary
  // file of the set is removed.
  std::optional<OutputFailure> add(const std::string &path, std::string_view data);
  // The same for contents made piece by piece: `produce` hands each piece to the sink it gets
  // (false: the piece could not be written) and returns the reason it could not finish, if any.
  // A regular file is written as the pieces come, by a thread of its own while the next are
  // made, so its size never sits in memory; stdout and special files keep the pieces until
  // commit().
  using Sink = std::function<bool(std::string_view)>;
  std::optional<OutputFailure>
  add_streamed(const std::string &path,
               const std::function<std::optional<std::string>(const Sink &)> &produce);
  // Writes stdout and the special files, then renames every temporary file into place: a
  // failure before the renames leaves every file as it was.
  std::optional<OutputFailure> commit();

private:
  struct Staged {
    std::string path, target, temp;
    int interrupt_slot; // removal of `temp` if a signal interrupts the run
  };
  struct Direct {
    std::string path, data;
  };
  std::optional<OutputFailure>
  add_made(const std::string &path,
           const std::function<std::optional<std::string>(const Sink &)> &produce, bool behind);
  std::vector<Staged> staged_;
  std::vector<Direct> direct_;
  void discard();
};

// A temporary name in the folder of `target` that fits the folder's NAME_MAX however long the
// target's name is: "<name>.tmp-<unique>", the name shortened when it must be.
std::string temporary_name_beside(const std::string &target, const std::string &unique);

// The file a regular output at `path` is renamed onto: the file a symbolic link names (so the
// link stays a link), else `path` itself.
std::string rename_target(const std::string &path);

// A temporary file removed if SIGINT, SIGTERM or SIGHUP interrupts the process before
// forget_temp(slot): an interrupted run leaves no `*.tmp-*` file behind. The handlers are
// installed on first use, for the signals whose disposition is still the default. Returns the
// slot, or -1 when every slot is taken (the file is then removed by its owner only).
int remember_temp(const char *path);
void forget_temp(int slot);

// Writes all of `data` to `fd`; 0, or the errno of the failing write.
int write_all(int fd, const char *data, size_t size);

} // namespace cutrace

#endif // CUTRACE_OUTPUT_FILES_H
