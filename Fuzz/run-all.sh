#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Runs every libFuzzer target in Fuzz/ for a set time each, keeping what it learns: each target's
# corpus grows in Fuzz/corpus/TARGET (not committed) and starts the next run where this one
# stopped. From the project root:
#
#   Fuzz/run-all.sh            # 60 s each
#   Fuzz/run-all.sh 600        # 10 minutes each
#
# It prints one line per target (runs, corpus size, coverage) and exits 1 if any target found a
# crash, which libFuzzer leaves as crash-* in the current directory (replay: Fuzz/run.sh TARGET
# crash-FILE).
set -uo pipefail
seconds=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
targets=(MarshalFuzzer QueryFuzzer KeyringFuzzer)
failed=()
for target in "${targets[@]}"; do
  log=$(mktemp)
  # -print_final_stats: the runs and coverage, read below; the corpus is run.sh's own directory.
  "$here/run.sh" "$target" -max_total_time="$seconds" -print_final_stats=1 >"$log" 2>&1
  status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
  corpus=$(find "$here/corpus/$target" -type f | wc -l)
  if [ "$status" -ne 0 ]; then
    failed+=("$target")
    echo "$target: FAILED (exit $status) after ${runs:-?} runs; the end of its log:"
    tail -n 30 "$log"
  else
    echo "$target: ${runs:-?} runs in ${seconds} s, ${coverage:-cov: ?}, corpus of $corpus inputs"
  fi
  rm -f "$log"
done
[ "${#failed[@]}" -eq 0 ] || { echo "failed: ${failed[*]}"; exit 1; }
