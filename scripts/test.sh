#!/usr/bin/env bash
# Installs what is missing, builds kaisha and runs the whole test suite.
# Usage: scripts/test.sh [ctest args...]   (build dir: ./build)
# Env:   KAISHA_JOBS (build, default nproc), KAISHA_TEST_JOBS (tests at once,
#        default KAISHA_JOBS + 1), KAISHA_BUILD_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
BUILD_DIR="${KAISHA_BUILD_DIR:-build}"
JOBS="${KAISHA_JOBS:-$(nproc)}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
# Most tests wait on sockets and child processes (about a third of two cores
# busy at -j2), so one more test than cores runs at once.
TEST_JOBS="${KAISHA_TEST_JOBS:-$((JOBS + 1))}"
ctest --test-dir "$BUILD_DIR" -j "$TEST_JOBS" --output-on-failure --timeout 600 "$@"
