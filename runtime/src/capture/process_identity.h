// Who this process is in its job, for the run file's RUN section (docs/FORMAT.md, "Runs"): the
// ranks its launcher gave it, its host, and how far that host's clock may be from true time, so
// that merged timelines of several hosts can state how far apart their processes may be placed.
#ifndef CUTRACE_SRC_CAPTURE_PROCESS_IDENTITY_H
#define CUTRACE_SRC_CAPTURE_PROCESS_IDENTITY_H

#include <cstdint>
#include <optional>
#include <string>

namespace cutrace {

// The job (global) rank: the first of $CUTRACE_RANK, $RANK, $OMPI_COMM_WORLD_RANK, $PMI_RANK,
// $SLURM_PROCID that holds a number in [0, 2^30); -1 when none does.
int job_rank_from_env();
// The rank among the job's processes on this host: the first of $LOCAL_RANK,
// $OMPI_COMM_WORLD_LOCAL_RANK, $SLURM_LOCALID that holds one; -1 when none does.
int local_rank_from_env();

std::string host_name();

// The kernel's bound on this host's CLOCK_REALTIME error (adjtimex's `maxerror`, kept by the
// time daemon), in ns; nullopt when the kernel says the clock is not synchronised.
std::optional<uint64_t> host_clock_error_ns();

} // namespace cutrace

#endif // CUTRACE_SRC_CAPTURE_PROCESS_IDENTITY_H
