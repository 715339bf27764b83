# shellcheck shell=bash
# Sourced by the recorder measurement scripts (h200_recorder4.sh, h200_compact.sh,
# h200_recorder6.sh) after they set $out (the results folder, with logs/) and $budget_s (their
# step budget in seconds): the clock of the run, its budget, its log lines, and a pool of
# background jobs as wide as the machine. Records the GPU in $out/logs/gpu.txt.
: "${budget_s:?set budget_s before sourcing run_steps.sh}" "${out:?set out before sourcing run_steps.sh}"
started=$(date +%s)
budget() { (($(date +%s) - started < budget_s)); }
say() { echo "== $* ($(($(date +%s) - started)) s)" | tee -a "$out/summary.txt"; }
bg() { while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done; "$@" & }
drain() { while (($(jobs -rp | wc -l) > 0)); do wait -n || true; done; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$out/logs/gpu.txt" 2>&1
