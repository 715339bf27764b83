// The --help text of each trace-view command (usage.h).
#include "usage.h"

namespace trace_view {

const char *const kViewUsage =
    R"(usage: trace-view FILE.ctrace... [--html OUT] [--perfetto OUT.pftrace] [--json OUT]
                  [--summary] [--sqlite OUT.db] [--perfetto-json OUT] [--launch N] [--cta N]
                  [--clock-ghz F] [--raw-times] [--html-max-mb N]

Reads one or more runs (.ctrace: the launches a program recorded, with their decode maps) and
writes:
  --html OUT        self-contained HTML timeline (no network): a run opens at its overview
  --perfetto OUT    Perfetto's native trace (protobuf): open in https://ui.perfetto.dev; written
                    launch by launch, in memory bounded whatever the run's size
  --perfetto-json OUT  the same as Chrome Trace Event JSON, for chrome://tracing; the whole
                    output is built in memory (about 100 bytes per event)
  --json OUT        the summary's numbers as JSON (of one launch: the decoded launch)
  --summary         per kernel, stream and GPU statistics of a run; per event name, group and SM
                    of one launch; printed to stdout (the default when no output is named)
  --sqlite OUT.db   SQLite database: launches, rows, events, flows (docs/analysis.md); a file,
                    never '-'
Several files (processes or ranks of one job) are merged into one timeline, one process each.
  --launch N        only the launch with sequence number N (0 = the first recorded): every
                    output is then that launch's, as for a file holding one launch
  --cta N           with one launch: only CTA N (linear index: x + y*gridDim.x +
                    z*gridDim.x*gridDim.y); the HTML opens on it
  --clock-ghz F     use F GHz for every row instead of the measured SM clock rates
  --raw-times       times as recorded: keep what the markers themselves cost, which is
                    otherwise taken out inside slices (measured on the GPU at run start)
  --html-max-mb N   size bound of a run's HTML (default 100): past it the page keeps the
                    overview and the detail of the launches that fit, and says what it left out
  --help, --version
Subcommands (each has its own --help; docs/analysis.md):
  trace-view analyze FILE [--launch N] ...   hand-offs, busy/idle, tail and waves, histograms,
                                             slowest slices, statistics of a time window
  trace-view diff A B [--launch-a N] ...     per name and TRACE_DAG pair: what changed between
                                             two traces of one kernel, run-to-run noise marked
  trace-view list FILE...                    every launch: sequence number, kernel, grid,
                                             stream, start, duration, completeness
OUT may be '-' for stdout. Outputs are written all or none (temporary files, renamed into place);
an output may not be an input nor be named twice; FIFOs and devices are written to, not replaced.
Exit status: 0 done, 1 an output could not be written, 2 bad usage or unreadable/corrupt input.
)";

const char *const kAnalyzeUsage =
    R"(usage: trace-view analyze FILE.ctrace [--launch N] [--cta N] [--only LIST] [--top N]
                          [--bins N] [--name NAME] [--window BEGIN:END] [--json OUT]
                          [--rows] [--sms] [--clock-ghz F] [--raw-times]

Analyses of one launch (definitions in docs/analysis.md), printed on stdout: the launch's
completeness, one answer per question (biggest hand-off wait, most and least working group,
tail, waves, imbalance), then the tables:
  handoff     per TRACE_DAG pair: the wait inside dst (src end - dst begin), the gap (dst begin -
              src end), the part of dst after the hand-off; mean/p50/p95/max in ns and cycles;
              the fraction of the dst rows' life spent waiting
  busy        per group, row label and row: life, busy (union of slices, nested counted once),
              hand-off waits, busy excluding waits, idle
  tail        per CTA and SM start and finish, the last 5% of CTAs, tail length, waves (CTAs at
              once per SM) and the number of CTAs running over time
  histogram   per slice name: durations (ns) in --bins equal bins between min and max
  outliers    the --top slowest slices with CTA, SM, row label and payload
  loops       per slice name repeated in a row (a loop's iterations, payload = index): the
              iterations each row ran and their span, min/p50/max across rows, the longest
Options:
  --launch N        the launch with sequence number N (needed when the file holds several)
  --cta N           only CTA N (linear index); --window is then in that CTA's cycles
  --only LIST       comma-separated subset of handoff,busy,tail,histogram,outliers,loops
                    (default: all but loops; loops too in a trace of --auto)
  --top N           slowest slices shown (default 10; 0: all)
  --bins N          histogram bins (default 20)
  --name NAME       histograms and outliers of slices named NAME only
  --window B:E      statistics of the window [B, E] instead (ns since the launch's earliest row
                    start; cycles with --cta): per name, slices that intersect it, their time
                    inside it and in full; instants inside it. With --only, those analyses too.
  --rows            the per-row table in full (default: more than 16 rows are summarized as
                    min/median/max and the 5 least busy)
  --sms             the per-SM table and the CTAs-running steps in full (default: more than 16
                    are summarized: min/median/max and the 5 SMs finishing last)
  --json OUT        the same numbers as one JSON object (OUT '-' for stdout), every row and SM
  --clock-ghz F     use F GHz for every row instead of the measured SM clock rates
  --raw-times       times as recorded: keep what the markers themselves cost, which is
                    otherwise taken out inside slices (measured on the GPU at run start)
Exit status: 0 done, 1 the output could not be written, 2 bad usage or unreadable/corrupt input.
)";

const char *const kDiffUsage =
    R"(usage: trace-view diff A.ctrace B.ctrace [--launch-a N] [--launch-b N] [--kernel NAME]
                       [--noise-from C.ctrace D.ctrace]... [--noise-factor K]
                       [--noise-threshold PCT] [--top N] [--json OUT] [--force] [--clock-ghz F]
                       [--raw-times]

Compares two traces of one kernel (definitions in docs/analysis.md, "Comparing two traces"): per
event name and per TRACE_DAG pair (the wait inside dst and the gap before it), count, mean, p95 and
total time per CTA in A and in B, sorted by impact = |change of total time per CTA|. A change
within run-to-run noise is marked "noise".
  --launch-a N, --launch-b N   the launch with sequence number N of A (of B). Without it, a file
                    holding several launches of the kernel is pooled: all its launches of the
                    kernel count as one sample (totals per CTA over all their CTAs)
  --kernel NAME     the kernel to compare when a file holds launches of several kernels
                    (default: the kernel of the side that has one)
  --noise-from C D  two traces of one unchanged build: per row, the |relative change| from C to D
                    is its noise; repeat for more pairs (the largest change counts)
  --noise-factor K  a change is noise when |change| <= K x the measured noise (default 3)
  --noise-threshold PCT   the noise of rows no --noise-from pair measured, in percent of the row's
                    total per CTA (default: 5 for slices, 35 for hand-offs, measured on an H200:
                    docs/analysis.md)
  --top N           rows shown in the table (default 20; 0: all). --json has every row
  --json OUT        the numbers as one JSON object (OUT '-' for stdout)
  --force           compare two different kernels (a warning instead of an error)
  --clock-ghz F     use F GHz for every row instead of the measured SM clock rates
  --raw-times       times as recorded: keep what the markers themselves cost, which is
                    otherwise taken out inside slices (measured on the GPU at run start)
Exit status: 0 done, 1 the output could not be written, 2 bad usage, unreadable/corrupt input,
or two different kernels without --force.
)";

const char *const kListUsage =
    R"(usage: trace-view list FILE.ctrace...

Lists every launch of each run, one line each: its sequence number (what --launch N, --launch-a N
and --launch-b N choose), kernel, grid, block, device, stream, start and duration (µs on the
run's axis) and completeness (docs/analysis.md, "Completeness"); then the launches that were not
decoded, and why. Reads only the row headers of each launch: fast on a run of any size.
Exit status: 0 done, 2 bad usage or unreadable input.
)";

const char *const kMergeTorchUsage =
    R"(usage: trace-view merge-torch PROFILER.json RUN.ctrace -o OUT.pftrace [--tolerance-us T]

Writes torch.profiler's trace (its export_chrome_trace JSON) and the run as one Perfetto trace:
the profiler's processes and threads as tracks, and under each GPU stream's track the in-kernel
rows of every recorded launch matched to one of its kernel slices, by kernel name, GPU, stream
and host-aligned time (docs/torch.md). Prints how many launches were placed, how far at most
they were moved to lie inside their slice, and each launch not placed and why.
  -o OUT.pftrace     the merged trace (Perfetto's protobuf format)
  --tolerance-us T   a launch matches a kernel slice at most T µs from its span (default 20)
Exit status: 0 done, 1 the output could not be written, 2 bad usage, unreadable input, or a run
not on the host clock.
)";

} // namespace trace_view
