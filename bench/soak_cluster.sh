#!/usr/bin/env bash
# Bounded soak of crash-resume on a 3-node loopback cluster (not run by CI).
#
# A CEO node, a node serving llama3.2 (the poet) and one serving mistral (the
# lawyer) run over the scripted mock LLM. Tasks are submitted one after
# another while a random node — a worker or the CEO node — is killed
# (SIGKILL) and started again every few seconds. At the end the CEO node is
# started once more, so that it resumes what its last kill left, and the
# journal is read. Printed:
#   submitted  tasks submitted; accepted: those a CEO node journaled
#   completed  accepted tasks that ended done
#   failed     accepted tasks that ended with an error (a model or node lost)
#   lost       accepted tasks never ended (still running or interrupted): must be 0
#   double     tasks charged more than an uninterrupted run plus what their
#              listed re-runs explain: must be 0
#   reruns     calls run again after a resume (the journal's rerun notes)
#
# Usage: bench/soak_cluster.sh [MINUTES=30] [BUILD_DIR=build]
set -euo pipefail
minutes="${1:-30}"
build="${2:-build}"
source "$(cd "$(dirname "$0")" && pwd)/soak_common.sh"
soak_start "$build" kaisha-soak

write_poet_lawyer "$dir/script.yaml" "$dir/costs.yaml"
start_mock "$dir/script.yaml" "$dir/mock.log"
company_yaml "$dir/cluster.db" "$dir/costs.yaml" > "$dir/company.yaml"
company_yaml "$dir/baseline.db" "$dir/costs.yaml" > "$dir/baseline.yaml"
"${kenv[@]}" "$kaisha" run --config "$dir/baseline.yaml" -q "$poet_lawyer_task" > /dev/null

write_cluster_yaml "$dir/cluster.yaml" "$dir/company.yaml"
names=("${node_names[@]}")
for n in "${names[@]}"; do start_node "$dir/cluster.yaml" "$n"; done
sleep 2

deadline=$(( $(date +%s) + minutes * 60 ))
submitted=0
kills=0
while [ "$(date +%s)" -lt "$deadline" ]; do
  submitted=$((submitted + 1))
  "${kenv[@]}" "$kaisha" submit --cluster "127.0.0.1:${node_ports[0]}" --timeout 30 "$poet_lawyer_task" \
    > /dev/null 2>&1 &
  client=$!
  # Somewhere in the task (it takes about 1.5 s), kill a node and start it again.
  sleep "$(python3 -c 'import random; print(round(random.uniform(0.05, 2.0), 2))')"
  victim="${names[$((RANDOM % 3))]}"
  kill_node "$victim"
  kills=$((kills + 1))
  sleep 0.3
  start_node "$dir/cluster.yaml" "$victim"
  wait "$client" 2>/dev/null || true
  sleep 1
done

# The CEO node, killed once more and started again, resumes what is left.
kill_node ceo
start_node "$dir/cluster.yaml" ceo
sleep 15
for n in "${names[@]}"; do kill -TERM "${node_pid[$n]}" 2>/dev/null || true; done
sleep 2

# One line per task: id status same_answer repaid reruns unexplained.
charges_beyond "$dir/baseline.db" "$dir/cluster.db" > "$dir/tasks.txt"
awk -v submitted="$submitted" -v kills="$kills" -v minutes="$minutes" '
  { accepted++; status[$2]++; reruns += $5; if ($6 > 0) { double++; print "  task " $1 ": " $6 " charges beyond an uninterrupted run and its re-runs" } }
  END {
    lost = status["running"] + status["interrupted"]
    printf "soak: %s min, %d kills\n", minutes, kills
    printf "submitted %d  accepted %d  completed %d  failed %d  canceled %d  lost %d  double %d  reruns %d\n",
           submitted, accepted, status["done"], status["failed"], status["canceled"], lost, double, reruns
    exit (lost == 0 && double == 0) ? 0 : 1
  }' "$dir/tasks.txt"
