#!/usr/bin/env bash
# Builds kaisha with a sanitizer and runs the whole test suite under it.
#   asan: AddressSanitizer + UBSan (+ LeakSanitizer), in ./build-asan
#   tsan: ThreadSanitizer, in ./build-tsan
# Third-party libraries from Debian (CAF, ZeroMQ, libcurl, ...) are not
# instrumented; tests/sanitize/*.supp suppress findings in their frames only,
# each entry with its reason. kaisha's own frames are never suppressed.
#
# Usage: scripts/sanitize.sh asan|tsan [CTEST ARGS...]   (e.g. -R Budget)
# Env:   KAISHA_JOBS (build and test parallelism, default nproc).
# Exit status: ctest's (0 when every test passed).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
KIND="${1:-}"
shift || true
case "$KIND" in
  asan) SANITIZE=address ;;
  tsan) SANITIZE=thread ;;
  *) echo "usage: scripts/sanitize.sh asan|tsan [ctest args...]" >&2; exit 2 ;;
esac
bash scripts/install-deps.sh
BUILD_DIR="build-$KIND"
JOBS="${KAISHA_JOBS:-$(nproc)}"
SUPP="$ROOT/tests/sanitize"

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKAISHA_SANITIZE="$SANITIZE" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"

# Every process a test starts (kaisha itself, the mock LLM, the MCP test
# server) inherits these. A finding fails the process that made it.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$SUPP/ubsan.supp"
export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1:detect_stack_use_after_return=0:strict_string_checks=1"
export LSAN_OPTIONS="suppressions=$SUPP/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$SUPP/tsan.supp:print_suppressions=0"

# TSan needs the fixed layout its shadow memory was built for; the kernel's
# address randomisation can map libraries where the shadow lives.
RUN=()
if [ "$KIND" = tsan ] && command -v setarch >/dev/null 2>&1; then RUN=(setarch "$(uname -m)" -R); fi

start="$(date -u +%s)"
set +e
"${RUN[@]}" ctest --test-dir "$BUILD_DIR" -j "$JOBS" --output-on-failure --timeout 600 "$@"
rc=$?
set -e
echo "sanitize.sh $KIND: ctest exit $rc after $(( $(date -u +%s) - start )) s ($(date -u +%F))"
exit "$rc"
