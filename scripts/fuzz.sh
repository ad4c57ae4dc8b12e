#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/*_fuzz.cpp) with clang, ASan and
# UBSan in ./build-fuzz and runs each one for SECONDS on a copy of its seed
# corpus (tests/fuzz/corpus/<name>/, with tests/fuzz/<name>.dict when there
# is one). Prints, per target: executions, exec/s, coverage and crashes.
# A crashing input (crash-*, leak-*, timeout-*, oom-*) is kept under
# tests/fuzz/crashes/<name>/; reproduce it with
#   build-fuzz/tests/fuzz/<name>_fuzz tests/fuzz/crashes/<name>/<file>
#
# Usage: scripts/fuzz.sh [SECONDS] [NAME...]   (default 180 s, every target)
# Env:   KAISHA_JOBS (build parallelism, default nproc),
#        KAISHA_FUZZ_BUILD_DIR (default build-fuzz), CXX (default clang++-14),
#        KAISHA_FUZZ_SKIP_BUILD=1 (run the targets already built),
#        KAISHA_FUZZ_OPT (default -O1; CI's short pass builds with -O0 in about
#        half the time, and runs 2 to 22 times fewer executions per second),
#        KAISHA_FUZZ_SEED=N (libFuzzer's -seed; default random: every run
#        explores anew. CI fixes it, so that CI fails on what a change
#        broke, never on what a lucky draw found first).
# Exit status: 1 when any target crashed, else 0.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
SECONDS_PER_TARGET="${1:-180}"
shift || true
BUILD_DIR="${KAISHA_FUZZ_BUILD_DIR:-build-fuzz}"
JOBS="${KAISHA_JOBS:-$(nproc)}"
CXX_BIN="${CXX:-clang++-14}"

if ! command -v "$CXX_BIN" >/dev/null 2>&1 || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  bash scripts/install-deps.sh --fuzz
fi
command -v "$CXX_BIN" >/dev/null 2>&1 || { echo "fuzz.sh: $CXX_BIN not found (set CXX to a clang++)" >&2; exit 2; }

if [ $# -gt 0 ]; then
  NAMES=("$@")
else
  NAMES=()
  for f in tests/fuzz/*_fuzz.cpp; do n="$(basename "$f" _fuzz.cpp)"; NAMES+=("$n"); done
fi
TARGETS=()
for n in "${NAMES[@]}"; do TARGETS+=("${n}_fuzz"); done

if [ "${KAISHA_FUZZ_SKIP_BUILD:-0}" != 1 ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER="$CXX_BIN" \
        -DKAISHA_FUZZ=ON -DKAISHA_FUZZ_OPT="${KAISHA_FUZZ_OPT:--O1}" >/dev/null
  cmake --build "$BUILD_DIR" -j "$JOBS" --target "${TARGETS[@]}"
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

WORK="$BUILD_DIR/fuzz-work"
SUMMARY=()
status=0
for n in "${NAMES[@]}"; do
  exe="$BUILD_DIR/tests/fuzz/${n}_fuzz"
  corpus="$WORK/$n/corpus"
  crashes="tests/fuzz/crashes/$n"
  log="$WORK/$n/fuzz.log"
  rm -rf "$corpus"
  mkdir -p "$corpus" "$crashes"
  if [ -d "tests/fuzz/corpus/$n" ]; then cp -r "tests/fuzz/corpus/$n/." "$corpus/"; fi
  seed=()
  if [ -n "${KAISHA_FUZZ_SEED:-}" ]; then seed=(-seed="$KAISHA_FUZZ_SEED"); fi
  dict=()
  if [ -f "tests/fuzz/$n.dict" ]; then dict=(-dict="tests/fuzz/$n.dict"); fi
  before="$(ls "$crashes" | wc -l)"
  echo "== $n: ${SECONDS_PER_TARGET}s (log: $log)"
  set +e
  "$exe" -max_total_time="$SECONDS_PER_TARGET" -timeout=25 -rss_limit_mb=2048 \
         -print_final_stats=1 -artifact_prefix="$ROOT/$crashes/" "${seed[@]}" "${dict[@]}" "$corpus" >"$log" 2>&1
  rc=$?
  set -e
  after="$(ls "$crashes" | wc -l)"
  # A run cut short by a crash may print no stats: "?" then, never an exit.
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1 || true)"
  cov="$( (grep -o 'cov: [0-9]*' "$log" || true) | tail -1 | cut -d' ' -f2)"
  found=$((after - before))
  if [ "$rc" -ne 0 ] && [ "$found" -eq 0 ]; then found="?"; fi  # died without an artifact
  line="$(printf '%-18s execs %-10s exec/s %-7s cov %-6s crashes %s' "$n" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$found")"
  echo "$line"
  if [ "$rc" -ne 0 ]; then
    status=1
    grep -m1 -E 'ERROR: (AddressSanitizer|libFuzzer)|runtime error:|fuzz invariant broken' "$log" | sed 's/^/   /' || true
    ls -t "$crashes" | head -1 | sed "s|^|   input: $crashes/|"
  fi
  SUMMARY+=("$line")
done

echo
echo "== summary (${SECONDS_PER_TARGET}s per target)"
printf '%s\n' "${SUMMARY[@]}"
exit "$status"
