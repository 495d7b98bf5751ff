#!/usr/bin/env bash
# Runs a command (default: `npm test`) RUNS times while one busy loop per core keeps every core
# busy, to find tests that fail only on a loaded machine. The busy loops start before the first
# run and are killed when the script ends, however it ends.
#
#   bash scripts/test-under-load.sh 3                  # npm test, three times
#   bash scripts/test-under-load.sh 1 npx vitest run test/chaos
#
# Each run's output goes to ${LOG_DIR:-/tmp/guardagent-load}/run-N.log; the summary says which passed.
set -uo pipefail
runs="${1:-3}"; shift || true
[ "$#" -gt 0 ] || set -- npm test
cores="$(nproc)"
log_dir="${LOG_DIR:-/tmp/guardagent-load}"
mkdir -p "$log_dir"

hogs=()
stop_hogs() { [ "${#hogs[@]}" -gt 0 ] && kill "${hogs[@]}" 2>/dev/null; wait 2>/dev/null; }
trap stop_hogs EXIT INT TERM
for _ in $(seq "$cores"); do
  sh -c 'while :; do :; done' &
  hogs+=("$!")
done
echo "test-under-load: ${#hogs[@]} busy loops (pids ${hogs[*]}); $runs run(s) of: $*"

failed=0
for run in $(seq "$runs"); do
  t=$SECONDS
  if "$@" >"$log_dir/run-$run.log" 2>&1; then result=passed; else result=FAILED; failed=$((failed + 1)); fi
  echo "test-under-load: run $run $result in $((SECONDS - t)) s (load average $(cut -d' ' -f1-3 /proc/loadavg)); log $log_dir/run-$run.log"
done
echo "test-under-load: $((runs - failed)) of $runs passed"
[ "$failed" -eq 0 ]
