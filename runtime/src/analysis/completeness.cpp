// What a launch or a run did not see (cutrace/completeness.h; docs/analysis.md, "Completeness").
#include <cutrace/completeness.h>
#include <cutrace/run_trace.h>

#include <algorithm>

namespace cutrace {

namespace {

std::string plural(uint64_t n, const std::string &one, const std::string &many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The launch has no figures: its records could not be read by a map, or nothing decoded.
bool undecoded(const RunLaunch &l) {
  return !l.trace.ok() && (l.detail ? l.trace.rows.empty() : true);
}

// What keeps the dropped events: for rows the build sized, a rebuild with the slots the fullest
// row attempted, as trace-rewrite, CMake and the compiler wrapper spell it (docs/cli.md,
// docs/cmake.md); for rows the host sized at launch, its budgets (docs/guide.md, "Row capacity").
std::string overflow_fix(const Completeness &c) {
  if (!c.slots_needed)
    return "";
  const std::string n = std::to_string(c.slots_needed);
  const std::string rebuild = "rebuild with --max-events " + n + " or more: cutrace_instrument(... "
                              "MAX_EVENTS " + n + "), cutrace-nvcc --cutrace-max-events=" + n;
  const std::string budgets = "raise CUTRACE_LAUNCH_MB, the budget a kernel's first launch sizes "
                              "its rows from, or CUTRACE_POOL_MB, the most a launch holds";
  if (!c.dropped_in_sized_rows)
    return " (to keep them, " + rebuild + ")";
  if (!c.dropped_in_built_rows)
    return " (a row attempted " + n + " slots; its rows were sized at launch: to keep them, " +
           budgets + ")";
  return " (to keep them, " + rebuild + "; where rows were sized at launch, " + budgets + ")";
}

} // namespace

void Completeness::add(const Completeness &o) {
  dropped_events += o.dropped_events;
  rows_overflowed += o.rows_overflowed;
  incomplete_slices += o.incomplete_slices;
  rows_never_ended += o.rows_never_ended;
  decode_problems += o.decode_problems;
  slots_needed = std::max(slots_needed, o.slots_needed);
  dropped_in_sized_rows = dropped_in_sized_rows || o.dropped_in_sized_rows;
  dropped_in_built_rows = dropped_in_built_rows || o.dropped_in_built_rows;
  ctas_left_out += o.ctas_left_out;
  cta_stride = std::max(cta_stride, o.cta_stride);
}

Completeness completeness_of(const Trace &trace) {
  Completeness c;
  for (const Row &row : trace.rows) {
    c.dropped_events += row.dropped;
    c.rows_overflowed += row.dropped != 0;
    if (row.dropped)
      c.slots_needed = std::max(c.slots_needed, row.attempted);
    c.rows_never_ended += row.never_ended();
    for (const Slice &s : row.slices)
      c.incomplete_slices += s.incomplete;
  }
  c.decode_problems = trace.problems.size();
  c.dropped_in_sized_rows = c.dropped_events != 0 && trace.header.rows_sized_at_launch;
  c.dropped_in_built_rows = c.dropped_events != 0 && !trace.header.rows_sized_at_launch;
  c.cta_stride = trace.header.cta_stride;
  c.ctas_left_out = trace.header.num_ctas() - trace.header.recorded_ctas();
  return c;
}

Completeness completeness_of(const RunLaunch &launch) {
  if (launch.detail)
    return completeness_of(launch.trace);
  Completeness c = launch.header_gaps;
  c.decode_problems = launch.trace.problems.size();
  return c;
}

std::string completeness_line(const Completeness &c) {
  if (c.complete())
    return "complete: no event dropped, every slice closed, every row ended";
  std::string out;
  auto add = [&out](const std::string &what) { out += (out.empty() ? "" : "; ") + what; };
  if (c.ctas_left_out)
    add(plural(c.ctas_left_out, "CTA", "CTAs") + " not recorded: 1 CTA in " +
        std::to_string(c.cta_stride) + " recorded whole, the rows of every CTA being more than " +
        "the pool holds (CUTRACE_POOL_MB)");
  if (c.dropped_events)
    add(plural(c.dropped_events, "event", "events") + " dropped (row full) on " +
        plural(c.rows_overflowed, "row", "rows") + overflow_fix(c));
  if (c.incomplete_slices)
    add(plural(c.incomplete_slices, "incomplete slice", "incomplete slices") +
        " (begun, never ended: cut at the row's last timestamp)");
  if (c.rows_never_ended)
    add(plural(c.rows_never_ended, "row", "rows") + " never ended (the kernel trapped or was "
                                                    "killed)");
  if (c.decode_problems)
    add(plural(c.decode_problems, "decode problem", "decode problems"));
  return "INCOMPLETE: " + out;
}

RunCompleteness run_completeness(const RunTrace &run) {
  RunCompleteness out;
  out.launches = run.launches.size() + run.lost.size();
  for (const RunLaunch &l : run.launches) {
    if (undecoded(l)) {
      UndecodedLaunch u;
      const RunDevice &device = run.devices[l.device];
      if (device.process < run.processes.size())
        u.file = run.processes[device.process].file;
      u.sequence = l.sequence;
      u.kernel = l.trace.kernel;
      u.why = l.trace.problems.front();
      out.undecoded.push_back(std::move(u));
      continue;
    }
    // What the row headers say, whether or not the records were read: a run's summary says the
    // same after a lean read as after a full one (incomplete slices are each launch's figure).
    Completeness c = completeness_of(l);
    c.incomplete_slices = 0;
    out.launches_incomplete += !c.complete();
    out.events.add(c);
  }
  for (const UndecodedLaunch &u : run.lost)
    out.undecoded.push_back(u);
  out.launches_decoded = out.launches - out.undecoded.size();
  uint64_t recorded = 0, held = out.launches;
  bool known = !run.processes.empty();
  for (const RunProcess &p : run.processes) {
    out.unfinished_processes += !p.complete;
    known = known && p.complete && !p.kernel_launches.empty();
    for (const auto &[kernel, counts] : p.kernel_launches)
      recorded += counts.second;
  }
  if (known && recorded > held)
    out.recorded_not_in_file = recorded - held;
  return out;
}

std::string run_completeness_text(const RunCompleteness &c, const std::string &indent) {
  if (c.complete())
    return indent + "complete: all " + plural(c.launches, "launch", "launches") +
           " decoded, no event dropped, every row ended\n";
  std::string out = indent + "INCOMPLETE: " + std::to_string(c.launches_decoded) + " of " +
                    plural(c.launches, "launch", "launches") + " decoded";
  if (c.launches_incomplete)
    out += ", " + std::to_string(c.launches_incomplete) + " of them with gaps";
  out += "\n";
  for (const UndecodedLaunch &u : c.undecoded)
    out += indent + "  not decoded: " + undecoded_name(u) + ": " + u.why + "\n";
  if (c.recorded_not_in_file)
    out += indent + "  " + plural(c.recorded_not_in_file, "launch", "launches") +
           " recorded (the run's END section counts them) " +
           (c.recorded_not_in_file == 1 ? "is" : "are") + " not in the file\n";
  if (c.unfinished_processes)
    out += indent + "  " +
           (c.unfinished_processes == 1 ? std::string("a process")
                                        : plural(c.unfinished_processes, "process", "processes")) +
           " did not finish writing its file (no END section): launches after its last one are "
           "not known\n";
  if (!c.events.complete())
    out += indent + "  events: " + completeness_line(c.events) + "\n";
  return out;
}

std::string undecoded_name(const UndecodedLaunch &u) {
  std::string out = u.sequence ? "launch " + std::to_string(*u.sequence) : "a launch";
  std::string what = u.kernel;
  if (!u.file.empty())
    what += (what.empty() ? "" : ", ") + u.file;
  return what.empty() ? out : out + " (" + what + ")";
}

} // namespace cutrace
