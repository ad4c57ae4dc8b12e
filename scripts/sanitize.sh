#!/usr/bin/env bash
# Builds kaisha with a sanitizer and runs the whole test suite under it.
#   asan: AddressSanitizer + UBSan (+ LeakSanitizer), in ./build-asan
#   tsan: ThreadSanitizer, in ./build-tsan
# Third-party libraries from Debian (CAF, ZeroMQ, libcurl, ...) are not
# instrumented; tests/sanitize/*.supp suppress findings in their frames only,
# each entry with its reason. kaisha's own frames are never suppressed.
#
# Usage: scripts/sanitize.sh asan|tsan [CTEST ARGS...]   (e.g. -R Budget)
# Env:   KAISHA_JOBS (build parallelism, default nproc), KAISHA_TEST_JOBS (tests at
#        once, default KAISHA_JOBS + 1).
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

# TSan sees the order a hand-over between threads gets from CAF's mailboxes
# only when CAF itself is instrumented, and Debian ships no such build: tsan
# builds CAF 0.17.6, the version Debian packages, from Debian's source tarball
# (checksum from Debian's .dsc) into $BUILD_DIR/caf, and links kaisha to it.
CAF_ARGS=()
if [ "$KIND" = tsan ]; then
  CAF_PREFIX="$ROOT/$BUILD_DIR/caf"
  if [ ! -f "$CAF_PREFIX/lib/libcaf_core.so" ]; then
    CAF_TAR="actor-framework_0.17.6.orig.tar.gz"
    CAF_SHA256="e2bf5bd243f08bb7d8adde197cfe3e6d71314ed3378fe0692f8932f4c3b3928c"
    mkdir -p "$BUILD_DIR/caf-src"
    if [ ! -f "$BUILD_DIR/caf-src/$CAF_TAR" ]; then
      curl -fsSL -o "$BUILD_DIR/caf-src/$CAF_TAR" \
        "http://deb.debian.org/debian/pool/main/a/actor-framework/$CAF_TAR"
    fi
    echo "$CAF_SHA256  $BUILD_DIR/caf-src/$CAF_TAR" | sha256sum -c --quiet
    tar xzf "$BUILD_DIR/caf-src/$CAF_TAR" -C "$BUILD_DIR/caf-src"
    cmake -S "$BUILD_DIR/caf-src/actor-framework-0.17.6" -B "$BUILD_DIR/caf-build" -G Ninja \
      -DCMAKE_BUILD_TYPE=None -DCMAKE_INSTALL_PREFIX="$CAF_PREFIX" \
      "-DCMAKE_CXX_FLAGS=-O1 -g -fno-omit-frame-pointer -fsanitize=thread" \
      -DCAF_NO_EXAMPLES=yes -DCAF_NO_UNIT_TESTS=yes -DCAF_NO_TOOLS=yes -DCAF_NO_IO=yes \
      -DCAF_NO_OPENSSL=yes -DCAF_NO_PYTHON=yes -DCAF_NO_OPENCL=yes \
      -DCAF_NO_COMPILER_CHECK=yes -DCAF_NO_SUMMARY=yes >/dev/null
    cmake --build "$BUILD_DIR/caf-build" -j "$JOBS" --target install >/dev/null
  fi
  CAF_ARGS=(-DCAF_INCLUDE_DIR="$CAF_PREFIX/include" -DCAF_core_LIBRARY="$CAF_PREFIX/lib/libcaf_core.so")
fi

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKAISHA_SANITIZE="$SANITIZE" "${CAF_ARGS[@]}" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"

# Every process a test starts (kaisha itself, the mock LLM, the MCP test
# server) inherits these. A finding fails the process that made it.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$SUPP/ubsan.supp"
export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1:detect_stack_use_after_return=0:strict_string_checks=1"
export LSAN_OPTIONS="suppressions=$SUPP/lsan.supp:print_suppressions=0"
# Tests that bound how long something may take (to show it does not wait)
# stretch the bound by this (tests/time_scale.hpp): instrumented code is slower.
export KAISHA_TEST_TIME_SCALE="${KAISHA_TEST_TIME_SCALE:-5}"
# Tests that bound a process's peak memory skip that bound under a sanitizer
# (shadow memory, ASan's quarantine); they still check everything else.
export KAISHA_TEST_SANITIZER="$KIND"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$SUPP/tsan.supp:print_suppressions=0"

# TSan needs the fixed layout its shadow memory was built for; the kernel's
# address randomisation can map libraries where the shadow lives.
RUN=()
if [ "$KIND" = tsan ] && command -v setarch >/dev/null 2>&1; then RUN=(setarch "$(uname -m)" -R); fi

start="$(date -u +%s)"
set +e
# As in scripts/test.sh: most tests wait, so one more than cores runs at once.
TEST_JOBS="${KAISHA_TEST_JOBS:-$((JOBS + 1))}"
"${RUN[@]}" ctest --test-dir "$BUILD_DIR" -j "$TEST_JOBS" --output-on-failure --timeout 600 "$@"
rc=$?
set -e
echo "sanitize.sh $KIND: ctest exit $rc after $(( $(date -u +%s) - start )) s ($(date -u +%F))"
exit "$rc"
