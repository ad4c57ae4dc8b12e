#!/usr/bin/env bash
# Instructions per ask with telemetry on, off and bare (README §8), counted by
# callgrind over the whole process.
#
# One run of TASKS tasks with CALLS = A each and one with CALLS = B; their
# difference divided by TASKS x (B - A) is the cost of one ask, with start-up
# cancelled out. With one task a pair varies by up to about ±17 k instructions
# per ask between runs (how the journal batches its writes depends on timing),
# so each run has several tasks and each point is the median of REPS runs. Two
# runs go at once (one per core).
#
# Usage: bench/telemetry_instructions.sh [A=10] [B=40] [TASKS=3] [REPS=5] [BUILD_DIR=build]
set -euo pipefail
a="${1:-10}"
b="${2:-40}"
tasks="${3:-3}"
reps="${4:-5}"
build="${5:-build}"
bin="$(cd "$build" && pwd)/bench/bench_telemetry_overhead"
[ -x "$bin" ] || { echo "no bench_telemetry_overhead at $bin (build first)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }
dir="$(mktemp -d /tmp/kaisha-telemetry-cg.XXXXXX)"
trap 'rm -rf "$dir"' EXIT

total() { awk '/^(summary|totals):/ { print $2; exit }' "$1"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for r in $(seq "$reps"); do
  for mode in bare off on; do
    valgrind --tool=callgrind --callgrind-out-file="$dir/$mode.$a.$r" "$bin" "$mode" "$a" "$tasks" >/dev/null 2>&1 &
    valgrind --tool=callgrind --callgrind-out-file="$dir/$mode.$b.$r" "$bin" "$mode" "$b" "$tasks" >/dev/null 2>&1 &
    wait
  done
done

declare -A per_ask
for mode in bare off on; do
  lo=$(for r in $(seq "$reps"); do total "$dir/$mode.$a.$r"; done | median)
  hi=$(for r in $(seq "$reps"); do total "$dir/$mode.$b.$r"; done | median)
  per_ask[$mode]=$(awk -v lo="$lo" -v hi="$hi" -v n=$((tasks * (b - a))) 'BEGIN { printf "%.0f", (hi - lo) / n }')
done
echo "instructions per ask, CALLS $a -> $b, $tasks tasks a run, median of $reps runs:"
for mode in bare off on; do printf '  %-4s %s\n' "$mode" "${per_ask[$mode]}"; done
awk -v on="${per_ask[on]}" -v off="${per_ask[off]}" -v bare="${per_ask[bare]}" \
  'BEGIN { printf "  on/off %+.1f %%, on/bare %+.1f %%\n", 100 * (on / off - 1), 100 * (on / bare - 1) }'
