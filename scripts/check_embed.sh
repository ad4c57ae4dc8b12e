#!/usr/bin/env bash
# Installs kaisha from a build into a temporary prefix, then builds and runs
# examples/embed against it (scripts/run_embed_examples.sh). Prints the
# seconds each stage took (docs/library.md).
# Usage: scripts/check_embed.sh [BUILD_DIR]   (default: build, configured)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
now() { date +%s%N; }
took() { local ms=$((($(now) - $2) / 1000000)); printf '%s: %d.%d s\n' "$1" $((ms / 1000)) $((ms % 1000 / 100)); }

t=$(now)
cmake --build "$build" --target kaisha_install_set >/dev/null
took "build (kaisha and its libraries)" "$t"
t=$(now)
cmake --install "$build" --prefix "$work/prefix" >/dev/null
took "install" "$t"
bash "$src/scripts/run_embed_examples.sh" "$work/prefix" "$work"
