#!/usr/bin/env bash
# Builds examples/embed against the kaisha installed under PREFIX, in WORK
# (outside the source tree, with no include path into it), runs each program
# against PREFIX's `kaisha mock-llm` with PREFIX's data, and checks what it
# prints. Used by scripts/check_embed.sh and scripts/check_deb.sh.
# Usage: scripts/run_embed_examples.sh PREFIX WORK
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
prefix="$1"
work="$2"
mock_pid=""
trap '[ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null; true' EXIT
now() { date +%s%N; }
took() { local ms=$((($(now) - $2) / 1000000)); printf '%s: %d.%d s\n' "$1" $((ms / 1000)) $((ms % 1000 / 100)); }

"$prefix/bin/kaisha" --version

t=$(now)
rm -rf "$work/embed" "$work/embed-build"
cp -r "$src/examples/embed" "$work/embed"
cmake -S "$work/embed" -B "$work/embed-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/embed-build" -j 2 >"$work/build.log" || { cat "$work/build.log"; exit 1; }
took "consumer configure + build" "$t"
if grep -F -e "$src/" "$work/embed-build/build.ninja" | grep -q -e "-I" -e "-isystem"; then
  echo "run_embed_examples: the consumer build has an include path into $src" >&2
  exit 1
fi

"$prefix/bin/kaisha" mock-llm --script "$work/embed/scenario.yaml" --port 0 >"$work/mock.out" 2>&1 &
mock_pid=$!
for _ in $(seq 100); do grep -q listening "$work/mock.out" 2>/dev/null && break; sleep 0.1; done
export KAISHA_MOCK_PORT="$(grep -o '[0-9]*$' "$work/mock.out")"
# The programs read the installed prompts and data, not the source tree's.
export KAISHA_DATA_DIR="$prefix/share/kaisha"

failed=0
# check PROGRAM CONFIG EXPECTED...: each EXPECTED is text the output must contain.
check() {
  local program="$1" config="$2"
  shift 2
  local out="$work/$program.out" status=0
  KAISHA_DB="$work/$program.db" "$work/embed-build/$program" "$work/embed/$config" >"$out" 2>"$work/$program.err" ||
    status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL $program: exit $status"; cat "$out" "$work/$program.err"; failed=1; return
  fi
  for expected in "$@"; do
    if ! grep -qF -- "$expected" "$out"; then
      echo "FAIL $program: no '$expected' in:"; cat "$out"; failed=1; return
    fi
  done
  echo "ok   $program"
}
t=$(now)
check multiply_tool config.yaml 'Multiply answered: {"message":"the product","output":42.0,"status":"success"}'
check custom_model config.yaml 'HELLO FROM THE CEO'
check stream_events config.yaml ' hire [CEO]' ' ask [CEO]' ' answer [Poet] Poet: Silver water runs' ' fire [CEO]' \
  ' final [CEO] Here is the poem' 'answer: Here is the poem: Silver water runs'
check custom_strategy strategy.yaml 'draft 1: rivers run' 'draft 2: Rivers run to the sea' \
  'answer: Rivers run to the sea, carrying the rain.'
took "four programs against the mock" "$t"
exit $failed
