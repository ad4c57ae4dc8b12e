#!/usr/bin/env bash
# Kill-and-resume soak of every strategy and of a cluster's CEO node (not run
# by CI; bench/README.md has its last results).
#
# For each of hashiru, effgen and pyramid (the scripted tasks of
# tests/e2e/resume_test.cpp, tests/e2e/data/resume/), CYCLES times: `kaisha
# run` starts the task on a fresh journal, is killed (SIGKILL) a random time
# after its task row appears (0 to the uninterrupted run's length), and
# `kaisha resume` finishes it. Then, CYCLES times on a 3-node loopback
# cluster (bench/soak_cluster.sh's company): a task is submitted, the CEO
# node killed at a random point of it and started again, and it resumes the
# task by itself. Printed per strategy:
#   cycles       kill-and-resume cycles run
#   interrupted  cycles whose kill came while the task ran (the rest had ended)
#   resumed      cycles whose task ended done after the resume
#   same_answer  cycles whose final answer is the uninterrupted run's
#   repaid       expense ledger charges beyond the uninterrupted run's (by kind
#                and agent), summed over the cycles
#   reruns       calls the journal lists as run again after a resume, summed
#   unexplained  charges beyond the uninterrupted run's plus its listed
#                re-runs, summed: must be 0
#   intact_kill  journals passing PRAGMA integrity_check as the kill left them
#   intact_end   the same after the resume; the first failing answer is printed
# Exits 0 only when every cycle resumed to the same answer, nothing was
# charged unexplained, and every journal passed integrity_check.
#
# Usage: bench/soak_resume.sh [CYCLES=100] [BUILD_DIR=build] [STRATEGIES="hashiru effgen pyramid cluster"]
# Bounded: every wait has a deadline, and no new cycle starts after
# SOAK_MAX_MINUTES (default 180) minutes. Needs the sqlite3 shell
# (scripts/install-deps.sh) and python3.
set -euo pipefail
cycles="${1:-100}"
build="${2:-build}"
strategies="${3:-hashiru effgen pyramid cluster}"
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/soak_common.sh"
soak_start "$build" kaisha-soak-resume
data="$here/../tests/e2e/data/resume"
command -v sqlite3 > /dev/null || { echo "needs the sqlite3 shell (scripts/install-deps.sh)" >&2; exit 2; }
stop_at=$(( $(date +%s) + ${SOAK_MAX_MINUTES:-180} * 60 ))
echo "soak_resume: $cycles cycles per strategy, work in $dir" >&2

ms_now() { date +%s%3N; }
# random_ms MAX: uniform in [0, MAX].
random_ms() { echo $(( (RANDOM * 32768 + RANDOM) % ($1 + 1) )); }
sleep_ms() { sleep "$(awk -v ms="$1" 'BEGIN { printf "%.3f", ms / 1000 }')"; }
# wait_until SECONDS COMMAND...: polls COMMAND every 50 ms; 1 when it never held.
wait_until() {
  local until=$(( $(ms_now) + $1 * 1000 )); shift
  until "$@"; do
    [ "$(ms_now)" -lt "$until" ] || return 1
    sleep 0.05
  done
}
tasks_in() { [ "$(sqlite3 -readonly "$1" 'SELECT count(*) FROM tasks' 2> /dev/null || echo 0)" -ge "$2" ]; }
task_status() { sqlite3 -readonly "$1" "SELECT status FROM tasks WHERE id = '$2'" 2> /dev/null || true; }
task_ended() { local s; s="$(task_status "$1" "$2")"; [ -n "$s" ] && [ "$s" != running ] && [ "$s" != interrupted ]; }
newest_task() { sqlite3 -readonly "$1" 'SELECT id FROM tasks ORDER BY started_at DESC, rowid DESC LIMIT 1' 2> /dev/null || true; }

# What the strategy's scenario needs: its task, config sections and --strategy.
scenario() {
  ceo_model=openai:ceo-model
  case "$1" in
    hashiru)
      task="Add up the two numbers the worker finds."
      extra=$'employee:\n  max_output_tokens: 1024\n  tools:\n    agents:\n      Adder: [Calculator]' ;;
    effgen)
      task="Research the three largest cloud providers, compare their pricing for GPU instances, analyze the security and compliance certifications of each, calculate the total cost of a 6 month training run on each, and synthesize a recommendation report with a table and a chart for the finance team."
      extra=$'effgen:\n  planner_model: openai:planner-7b\n  worker_model: worker\n  max_concurrent: 5\njudge:\n  model: openai:judge-7b' ;;
    pyramid)
      task="Write two haiku, one about rivers and one about stones"
      extra="pyramid:
  library: $here/../examples/pyramid/writers.yaml
  model: openai:worker-model
  entry: lead_agent
tools:
  workspace_root: $dir/work"
      ceo_model=openai:lead-model ;;
  esac
}

# result NAME CYCLES INTERRUPTED RESUMED SAME REPAID RERUNS UNEXPLAINED INTACT_KILL INTACT_END FIRST_FAILURE
results=()
failed=0
report() {
  results+=("$(printf '%-8s %6s %11s %7s %11s %6s %6s %11s %11s %10s' "${@:1:10}")")
  local name="$1"; shift 10
  [ -n "${1:-}" ] && results+=("         $name: $1")
  return 0
}

soak_strategy() {
  local s="$1" task extra ceo_model
  scenario "$s"
  start_mock "$data/$s.yaml" "$dir/$s-mock.log"
  config_for() { company_yaml "$1" "$data/costs.yaml" "$extra" "$ceo_model" > "$2"; }

  # The uninterrupted run, timed from its task row to its end.
  local base="$dir/$s-base.db"
  config_for "$base" "$dir/$s-base.yaml"
  "${kenv[@]}" "$kaisha" run --config "$dir/$s-base.yaml" --strategy "$s" --json "$task" > "$dir/$s-base.out" 2>&1 &
  local runner=$!
  wait_until 30 tasks_in "$base" 1 || { echo "$s: the uninterrupted run never journaled its task" >&2; cat "$dir/$s-base.out" >&2; exit 1; }
  local began; began="$(ms_now)"
  wait "$runner" || { echo "$s: the uninterrupted run failed" >&2; cat "$dir/$s-base.out" >&2; exit 1; }
  local wall=$(( $(ms_now) - began ))
  [ "$(task_status "$base" "$(newest_task "$base")")" = done ] || { echo "$s: the uninterrupted run did not end done" >&2; exit 1; }
  echo "$s: uninterrupted run ${wall} ms after its task row" >&2

  local n=0 interrupted=0 resumed=0 same=0 repaid=0 reruns=0 unexplained=0 intact_kill=0 intact_end=0 first=""
  for i in $(seq "$cycles"); do
    [ "$(date +%s)" -lt "$stop_at" ] || { echo "$s: SOAK_MAX_MINUTES reached after $n cycles" >&2; break; }
    local db="$dir/$s-$i.db" cfg_i="$dir/$s-$i.yaml"
    config_for "$db" "$cfg_i"
    "${kenv[@]}" "$kaisha" run --config "$cfg_i" --strategy "$s" --json "$task" > "$dir/$s-$i.out" 2>&1 &
    runner=$!
    if ! wait_until 30 tasks_in "$db" 1; then
      echo "$s cycle $i: no task row within 30 s" >&2
      kill -9 "$runner" 2> /dev/null || true; wait "$runner" 2> /dev/null || true
      continue
    fi
    local delay; delay="$(random_ms "$wall")"
    sleep_ms "$delay"
    kill -9 "$runner" 2> /dev/null || true
    wait "$runner" 2> /dev/null || true
    n=$((n + 1))
    local id; id="$(newest_task "$db")"
    local check; check="$(integrity "$db")"
    if [ "$check" = ok ]; then intact_kill=$((intact_kill + 1)); else [ -n "$first" ] || first="cycle $i, as killed: $check"; fi
    if [ "$(task_status "$db" "$id")" = running ]; then
      interrupted=$((interrupted + 1))
      timeout -s KILL 120 "${kenv[@]}" "$kaisha" resume --config "$cfg_i" --json \
        > "$dir/$s-$i.resume.out" 2>&1 || echo "$s cycle $i (killed at $delay ms): resume exited $?" >&2
    fi
    check="$(integrity "$db")"
    if [ "$check" = ok ]; then intact_end=$((intact_end + 1)); else [ -n "$first" ] || first="cycle $i, after the resume: $check"; fi
    local line; line="$(charges_beyond "$base" "$db" "$id")"
    local status=missing same_answer=0 rp=0 rr=0 un=0
    read -r _ status same_answer rp rr un <<< "$line" || true
    [ "$status" = done ] && resumed=$((resumed + 1))
    same=$((same + same_answer)); repaid=$((repaid + rp)); reruns=$((reruns + rr)); unexplained=$((unexplained + un))
    [ "$un" = 0 ] || echo "$s cycle $i (killed at $delay ms): $un charges beyond the uninterrupted run and its listed re-runs" >&2
    # Kept only when something is to be looked at.
    if [ "$status" = done ] && [ "$same_answer" = 1 ] && [ "$un" = 0 ] && [ "$check" = ok ]; then
      [ -n "${SOAK_KEEP:-}" ] || rm -rf "$db" "$db-wal" "$db-shm" "${db%.db}.memory.db"*
    fi
  done
  kill -9 "$mock_pid" 2> /dev/null || true
  wait "$mock_pid" 2> /dev/null || true
  report "$s" "$n" "$interrupted" "$resumed" "$same" "$repaid" "$reruns" "$unexplained" "$intact_kill" "$intact_end" "$first"
  [ "$resumed" = "$n" ] && [ "$same" = "$n" ] && [ "$unexplained" = 0 ] && [ "$intact_end" = "$n" ] && [ "$intact_kill" = "$n" ] || failed=1
}

soak_cluster_ceo() {
  write_poet_lawyer "$dir/cluster-script.yaml" "$dir/cluster-costs.yaml"
  start_mock "$dir/cluster-script.yaml" "$dir/cluster-mock.log"
  company_yaml "$dir/cluster.db" "$dir/cluster-costs.yaml" > "$dir/company.yaml"
  company_yaml "$dir/cluster-base.db" "$dir/cluster-costs.yaml" > "$dir/cluster-base.yaml"
  local began; began="$(ms_now)"
  timeout -s KILL 120 "${kenv[@]}" "$kaisha" run --config "$dir/cluster-base.yaml" -q "$poet_lawyer_task" > /dev/null
  local wall=$(( $(ms_now) - began ))
  write_cluster_yaml "$dir/cluster.yaml" "$dir/company.yaml"
  for name in "${node_names[@]}"; do start_node "$dir/cluster.yaml" "$name"; done
  local ceo="127.0.0.1:${node_ports[0]}"
  cluster_ready() { [ "$(timeout -s KILL 20 "${kenv[@]}" "$kaisha" cluster status --cluster "$ceo" --json --timeout 3 2> /dev/null |
                         grep -o '"state": *"alive"' | wc -l)" = 3 ]; }
  wait_until 60 cluster_ready || { echo "cluster: not ready in 60 s" >&2; exit 1; }
  echo "cluster: uninterrupted run ${wall} ms (one process, start-up included)" >&2

  local n=0 interrupted=0 resumed=0 same=0 repaid=0 reruns=0 unexplained=0 intact_kill=0 intact_end=0 first=""
  for i in $(seq "$cycles"); do
    [ "$(date +%s)" -lt "$stop_at" ] || { echo "cluster: SOAK_MAX_MINUTES reached after $n cycles" >&2; break; }
    "${kenv[@]}" "$kaisha" submit --cluster "$ceo" --timeout 60 "$poet_lawyer_task" > /dev/null 2>&1 &
    local client=$!
    if ! wait_until 30 tasks_in "$dir/cluster.db" "$i"; then
      echo "cluster cycle $i: no task row within 30 s" >&2
      kill -9 "$client" 2> /dev/null || true; wait "$client" 2> /dev/null || true
      break
    fi
    local id; id="$(newest_task "$dir/cluster.db")"
    local delay; delay="$(random_ms "$wall")"
    sleep_ms "$delay"
    kill_node ceo
    n=$((n + 1))
    local check; check="$(integrity "$dir/cluster.db")"
    if [ "$check" = ok ]; then intact_kill=$((intact_kill + 1)); else [ -n "$first" ] || first="cycle $i, as killed: $check"; fi
    [ "$(task_status "$dir/cluster.db" "$id")" = running ] && interrupted=$((interrupted + 1))
    start_node "$dir/cluster.yaml" ceo
    wait_until 90 task_ended "$dir/cluster.db" "$id" || echo "cluster cycle $i: task $id not ended 90 s after the restart" >&2
    wait "$client" 2> /dev/null || true
    wait_until 60 cluster_ready || echo "cluster cycle $i: the cluster not whole again in 60 s" >&2
    check="$(integrity "$dir/cluster.db")"
    if [ "$check" = ok ]; then intact_end=$((intact_end + 1)); else [ -n "$first" ] || first="cycle $i, after the resume: $check"; fi
    local line; line="$(charges_beyond "$dir/cluster-base.db" "$dir/cluster.db" "$id")"
    local status=missing same_answer=0 rp=0 rr=0 un=0
    read -r _ status same_answer rp rr un <<< "$line" || true
    [ "$status" = done ] && resumed=$((resumed + 1))
    same=$((same + same_answer)); repaid=$((repaid + rp)); reruns=$((reruns + rr)); unexplained=$((unexplained + un))
    [ "$un" = 0 ] || echo "cluster cycle $i (killed at $delay ms): $un charges beyond the uninterrupted run and its listed re-runs" >&2
  done
  for name in "${node_names[@]}"; do kill -TERM "${node_pid[$name]}" 2> /dev/null || true; done
  kill -9 "$mock_pid" 2> /dev/null || true
  wait "$mock_pid" 2> /dev/null || true
  report cluster "$n" "$interrupted" "$resumed" "$same" "$repaid" "$reruns" "$unexplained" "$intact_kill" "$intact_end" "$first"
  [ "$resumed" = "$n" ] && [ "$same" = "$n" ] && [ "$unexplained" = 0 ] && [ "$intact_end" = "$n" ] && [ "$intact_kill" = "$n" ] || failed=1
}

for s in $strategies; do
  case "$s" in
    hashiru | effgen | pyramid) soak_strategy "$s" ;;
    cluster) soak_cluster_ceo ;;
    *) echo "unknown strategy '$s' (hashiru, effgen, pyramid, cluster)" >&2; exit 2 ;;
  esac
done

echo "soak_resume: $(date -u '+%Y-%m-%d %H:%M') UTC, $cycles cycles per strategy, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %6s %11s %7s %11s %6s %6s %11s %11s %10s\n' strategy cycles interrupted resumed same_answer repaid reruns unexplained intact_kill intact_end
printf '%s\n' "${results[@]}"
exit "$failed"
