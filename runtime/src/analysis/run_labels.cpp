// Names of a run's kernels, GPUs and streams (run_labels.h).
#include "run_labels.h"

#include <cinttypes>
#include <cstdio>

namespace cutrace::run_labels {

const std::string &kernel_name(const RunTrace &run, const RunLaunch &launch) {
  static const std::string unknown = "?";
  return launch.map < run.maps.size() ? run.maps[launch.map].kernel : unknown;
}

std::string device_label(const RunTrace &run, const RunDevice &device) {
  std::string who = "process " + std::to_string(device.process);
  if (device.process < run.processes.size()) {
    const RunProcess &p = run.processes[device.process];
    if (p.rank >= 0)
      who = "rank " + std::to_string(p.rank);
    else if (!p.program.empty())
      who = p.program + " " + std::to_string(p.pid);
    else if (!p.file.empty())
      who = p.file.substr(p.file.find_last_of('/') + 1);
  }
  // Processes of several hosts: the host too, as the ranks of a job are found by their node.
  if (run.hosts > 1 && device.process < run.processes.size() &&
      !run.processes[device.process].host.empty())
    who += " \u00b7 " + run.processes[device.process].host;
  std::string label = who + " \u00b7 GPU " + std::to_string(device.index);
  if (!device.name.empty())
    label += " (" + device.name + ")";
  return label;
}

std::string stream_label(uint64_t stream) {
  if (stream == 0)
    return "0 (legacy default)";
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, stream);
  return text;
}

} // namespace cutrace::run_labels
