#include "process_identity.h"

#include <cstdlib>
#include <initializer_list>
#include <sys/timex.h>
#include <unistd.h>

namespace cutrace {

namespace {

// The first variable of `names` that is set to a rank: decimal digits only, below 2^30.
int first_rank(std::initializer_list<const char *> names) {
  for (const char *name : names)
    if (const char *v = std::getenv(name); v != nullptr && *v != '\0') {
      char *end = nullptr;
      const long r = std::strtol(v, &end, 10);
      if (*end == '\0' && r >= 0 && r < (1l << 30))
        return int(r);
    }
  return -1;
}

} // namespace

// Launchers nest (torchrun under srun, mpirun inside a Slurm allocation): the variable of the
// innermost launcher comes first, so SLURM_PROCID (a task per node under torchrun, a Slurm task
// rather than the MPI rank under mpirun) is the last resort.
int job_rank_from_env() {
  return first_rank({"CUTRACE_RANK", "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"});
}

int local_rank_from_env() {
  return first_rank({"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"});
}

std::string host_name() {
  char buf[256] = {};
  return ::gethostname(buf, sizeof buf - 1) == 0 ? buf : "";
}

std::optional<uint64_t> host_clock_error_ns() {
  struct timex t = {}; // modes 0: read only, no privilege needed
  const int state = ::adjtimex(&t);
  if (state == -1 || state == TIME_ERROR || (t.status & STA_UNSYNC) != 0 || t.maxerror < 0)
    return std::nullopt;
  return uint64_t(t.maxerror) * 1000; // maxerror is in microseconds
}

} // namespace cutrace
