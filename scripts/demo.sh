#!/usr/bin/env bash
# The main job: builds kaisha, starts the mock LLM with the bundled scenario and
# runs a HASHIRU task end to end (Case Study 3): the CEO checks costs, hires a
# local-priced and an API-priced employee, asks both, is refused a second API
# call when the expense budget runs out, fires one employee and answers.
# Then the effgen strategy on a complex task: zero-call complexity routing,
# a hybrid subtask DAG run concurrently on workers, a judge rejection and
# retry, synthesis. Then the pyramid strategy: a lead agent calls a writer
# agent twice at once as tools, the judge audits every result and rejects
# one, the writer redoes it. Last, InfiHelper's library on the pyramid takes a
# research topic from the literature to a paper: its modules' agents call each
# other as tools, write their artefacts in the task's directory, and the code
# runs in the sandbox. Then HALO: the query refined, two subtasks planned one at
# a time, three roles designed and hired, each subtask's workflow searched by
# MCTS (one rollout judged fail), stopped when two answers agree; its search
# tree is printed from the journal. Prints the transcripts (stderr), answers
# (stdout), ledgers.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
BUILD_DIR="${KAISHA_BUILD_DIR:-build}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target kaisha
KAISHA="$BUILD_DIR/cli/kaisha"

workdir="$(mktemp -d)"
# Run as root, sandboxed programs run as another uid, which must pass through
# the work directory to reach the task's files.
chmod 755 "$workdir"
mock_pid=""
trap 'kill $mock_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$workdir"' EXIT

# Starts the mock LLM on a free port with script $1; exports KAISHA_MOCK_PORT.
start_mock() {
  [ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null || true
  "$KAISHA" mock-llm --script "$1" --port 0 >"$workdir/mock.out" 2>&1 &
  mock_pid=$!
  for _ in $(seq 50); do grep -q listening "$workdir/mock.out" 2>/dev/null && break; sleep 0.1; done
  export KAISHA_MOCK_PORT="$(grep -o '[0-9]*$' "$workdir/mock.out")"
}

start_mock examples/demo/scenario.yaml
port="$KAISHA_MOCK_PORT"
export KAISHA_DB="$workdir/demo.db"

echo "== kaisha run (mock LLM on 127.0.0.1:$port) ==" >&2
"$KAISHA" run --config examples/demo/config.yaml \
  "Write me a short guide to rivers: a poem and three facts, using an expense based agent for the facts."
echo >&2
echo "== kaisha agents / budget (read back from $KAISHA_DB) ==" >&2
"$KAISHA" agents --config examples/demo/config.yaml
"$KAISHA" budget --config examples/demo/config.yaml

echo >&2
echo "== kaisha run --strategy effgen ==" >&2
start_mock examples/effgen/scenario.yaml
export KAISHA_DB="$workdir/effgen.db"
"$KAISHA" run --strategy effgen --config examples/effgen/config.yaml \
  "Research the three largest cloud providers, compare their pricing for GPU instances, analyze the security and compliance certifications of each, calculate the total cost of a 6 month training run on each, and synthesize a recommendation report with a table and a chart for the finance team."

echo >&2
echo "== kaisha run --strategy pyramid ==" >&2
start_mock examples/pyramid/scenario.yaml
export KAISHA_DB="$workdir/pyramid.db" KAISHA_WORK="$workdir/work"
"$KAISHA" run --strategy pyramid --config examples/pyramid/config.yaml \
  "Write two haiku, one about rivers and one about stones."

echo >&2
echo "== kaisha run --strategy pyramid: InfiHelper ==" >&2
start_mock examples/pyramid/infihelper_scenario.yaml
export KAISHA_DB="$workdir/infihelper.db" KAISHA_WORK="$workdir/infihelper-work"
"$KAISHA" run --strategy pyramid --config examples/pyramid/infihelper_config.yaml \
  "Write a short paper on learning-rate warm-up and decay for small language models."
echo "== InfiHelper's artefacts ==" >&2
(cd "$KAISHA_WORK"/.tasks/*/* && find . -type f | sort | sed 's|^\./|  |') >&2

echo >&2
echo "== kaisha run --strategy halo ==" >&2
start_mock examples/halo/scenario.yaml
export KAISHA_DB="$workdir/halo.db"
"$KAISHA" run --strategy halo --config examples/halo/config.yaml \
  "川の俳句を書いて: write a haiku about a river in spring 🌊"
echo "== HALO's search, from the journal (kaisha history --tree) ==" >&2
"$KAISHA" history --tree --db "$KAISHA_DB" >&2

echo >&2
echo "== kaisha evolve: HiVA grows a graph against three programs and their unit tests ==" >&2
start_mock examples/hiva/scenario.yaml
export KAISHA_DB="$workdir/hiva.db"
"$KAISHA" evolve --config examples/hiva/config.yaml --task-set examples/hiva/tasks.jsonl --iterations 3 \
  --name coders -q
echo "== the graph, iteration by iteration (kaisha graphs coders) ==" >&2
"$KAISHA" graphs coders --db "$KAISHA_DB" >&2
echo "== kaisha run --strategy hiva --graph coders: the evolved company on a new task ==" >&2
"$KAISHA" run --strategy hiva --graph coders --config examples/hiva/config.yaml -q \
  "Write a Python function double(x) that returns twice x."
"$KAISHA" history --tree --db "$KAISHA_DB" >&2
