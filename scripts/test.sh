#!/usr/bin/env bash
# Installs what is missing, builds kaisha and runs the whole test suite.
# Usage: scripts/test.sh [ctest args...]   (build dir: ./build)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
BUILD_DIR="${KAISHA_BUILD_DIR:-build}"
JOBS="${KAISHA_JOBS:-$(nproc)}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
ctest --test-dir "$BUILD_DIR" -j "$JOBS" --output-on-failure --timeout 600 "$@"
