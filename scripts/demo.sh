#!/usr/bin/env bash
# The main job: builds kaisha, starts the mock LLM with the bundled scenario and
# runs a HASHIRU task end to end (Case Study 3): the CEO checks costs, hires a
# local-priced and an API-priced employee, asks both, is refused a second API
# call when the expense budget runs out, fires one employee and answers.
# Prints the transcript (stderr), the answer (stdout) and the ledgers.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
BUILD_DIR="${KAISHA_BUILD_DIR:-build}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target kaisha
KAISHA="$BUILD_DIR/cli/kaisha"

workdir="$(mktemp -d)"
trap 'kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true; rm -rf "$workdir"' EXIT
"$KAISHA" mock-llm --script examples/demo/scenario.yaml --port 0 >"$workdir/mock.out" 2>&1 &
mock_pid=$!
for _ in $(seq 50); do grep -q listening "$workdir/mock.out" 2>/dev/null && break; sleep 0.1; done
port="$(grep -o '[0-9]*$' "$workdir/mock.out")"
export KAISHA_MOCK_PORT="$port" KAISHA_DB="$workdir/demo.db"

echo "== kaisha run (mock LLM on 127.0.0.1:$port) ==" >&2
"$KAISHA" run --config examples/demo/config.yaml \
  "Write me a short guide to rivers: a poem and three facts, using an expense based agent for the facts."
echo >&2
echo "== kaisha agents / budget (read back from $KAISHA_DB) ==" >&2
"$KAISHA" agents --config examples/demo/config.yaml
"$KAISHA" budget --config examples/demo/config.yaml
