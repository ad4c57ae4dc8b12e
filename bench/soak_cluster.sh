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
kaisha="$(cd "$build" && pwd)/cli/kaisha"
[ -x "$kaisha" ] || { echo "no kaisha at $kaisha (build first)" >&2; exit 2; }
dir="$(mktemp -d /tmp/kaisha-soak.XXXXXX)"
pids=()
cleanup() { for p in "${pids[@]:-}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

cat > "$dir/script.yaml" <<'EOF'
rules:
  - match: { model: ceo-model, last_role: user }
    reply:
      tool_calls:
        - { name: AgentCreator, arguments: { agent_name: Poet, base_model: llama3.2, system_prompt: "You write poems.", description: "Poems" } }
        - { name: AgentCreator, arguments: { agent_name: Lawyer, base_model: mistral, system_prompt: "You read contracts.", description: "Contracts" } }
  - match: { model: ceo-model, last_role: tool, last_tool_name: AgentCreator }
    reply:
      tool_calls:
        - { name: AskAgent, arguments: { agent_name: Poet, prompt: "A haiku about rivers" } }
        - { name: AskAgent, arguments: { agent_name: Lawyer, prompt: "Is clause 7 fair?" } }
  - match: { model: ceo-model, last_role: tool, last_tool_name: AskAgent }
    reply:
      tool_calls:
        - { name: FireAgent, arguments: { agent_name: Poet } }
        - { name: FireAgent, arguments: { agent_name: Lawyer } }
  - match: { model: ceo-model }
    reply: { text: "Report: the poet and the lawyer answered", latency_ms: 100 }
  - match: { model: llama3.2 }
    reply: { text: "Rivers hurry home", usage: { input_tokens: 120, output_tokens: 40 }, latency_ms: 700 }
  - match: { model: mistral }
    reply: { text: "Clause 7 is fair", usage: { input_tokens: 200, output_tokens: 60 }, latency_ms: 400 }
EOF
cat > "$dir/costs.yaml" <<'EOF'
models:
  ceo-model: { model_ref: openai:ceo-model, type: cloud, invoke_expense_cost: 100, output_expense_cost: 400, description: "CEO" }
  llama3.2: { model_ref: ollama:llama3.2, type: local, create_resource_cost: 10, invoke_resource_cost: 10, create_expense_cost: 0.5, invoke_expense_cost: 1000, output_expense_cost: 2000, description: "Poet" }
  mistral: { model_ref: ollama:mistral, type: local, create_resource_cost: 20, invoke_resource_cost: 20, create_expense_cost: 0.25, invoke_expense_cost: 500, output_expense_cost: 1000, description: "Lawyer" }
EOF

mock_port="$(free_port)"
"$kaisha" mock-llm --script "$dir/script.yaml" --port "$mock_port" > "$dir/mock.log" 2>&1 &
pids+=($!)
base="http://127.0.0.1:$mock_port"
company() {  # company() STORE
  cat <<EOF
store: $1
cost_table: $dir/costs.yaml
ceo: { model: openai:ceo-model }
providers:
  ollama: { base_url: $base, timeout_ms: 10000 }
  openai: { base_url: $base/v1, api_key: mock-key, timeout_ms: 10000 }
budget: { resource_mode: fixed, resource_total: 1000000, expense_total: 1000000 }
EOF
}
company "$dir/cluster.db" > "$dir/company.yaml"
company "$dir/baseline.db" > "$dir/baseline.yaml"
sleep 0.5
env -u KAISHA_MODEL -u KAISHA_DB "$kaisha" run --config "$dir/baseline.yaml" -q "Write a river haiku and check clause 7" > /dev/null

ports=("$(free_port)" "$(free_port)" "$(free_port)")
names=(ceo poets lawyers)
models=("[ceo-model]" "[llama3.2]" "[mistral]")
{
  echo "company: $dir/company.yaml"
  echo "cluster:"
  echo "  allow_plaintext: true"
  echo "  seeds: [tcp://127.0.0.1:${ports[0]}]"
  echo "nodes:"
  for i in 0 1 2; do
    echo "  ${names[$i]}:"
    echo "    bind: tcp://127.0.0.1:${ports[$i]}"
    echo "    resource_units: 1000"
    echo "    ceo: $([ "$i" = 0 ] && echo true || echo false)"
    echo "    models: ${models[$i]}"
  done
} > "$dir/cluster.yaml"

declare -A node_pid
start_node() {
  env -u KAISHA_MODEL -u KAISHA_DB "$kaisha" node --config "$dir/cluster.yaml" --name "$1" -q >> "$dir/$1.log" 2>&1 &
  node_pid[$1]=$!
  pids+=($!)
}
for n in "${names[@]}"; do start_node "$n"; done
sleep 2

deadline=$(( $(date +%s) + minutes * 60 ))
submitted=0
kills=0
while [ "$(date +%s)" -lt "$deadline" ]; do
  submitted=$((submitted + 1))
  "$kaisha" submit --cluster "127.0.0.1:${ports[0]}" --timeout 30 "Write a river haiku and check clause 7" \
    > /dev/null 2>&1 &
  client=$!
  # Somewhere in the task (it takes about 1.5 s), kill a node and start it again.
  sleep "$(python3 -c 'import random; print(round(random.uniform(0.05, 2.0), 2))')"
  victim="${names[$((RANDOM % 3))]}"
  kill -9 "${node_pid[$victim]}" 2>/dev/null || true
  wait "${node_pid[$victim]}" 2>/dev/null || true
  kills=$((kills + 1))
  sleep 0.3
  start_node "$victim"
  wait "$client" 2>/dev/null || true
  sleep 1
done

# The CEO node, killed once more and started again, resumes what is left.
kill -9 "${node_pid[ceo]}" 2>/dev/null || true
wait "${node_pid[ceo]}" 2>/dev/null || true
start_node ceo
sleep 15
for n in "${names[@]}"; do kill -TERM "${node_pid[$n]}" 2>/dev/null || true; done
sleep 2

python3 - "$dir/cluster.db" "$dir/baseline.db" "$submitted" "$kills" "$minutes" <<'EOF'
import sqlite3, sys, json
from collections import Counter
db, baseline, submitted, kills, minutes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
charges = "ledger = 'expense' AND kind IN ('ask_settle', 'hire', 'tool_settle', 'tool_create', 'ceo_call')"
def charged(conn, where, args=()):
    # (kind, agent) -> how many charges: a call or hire paid twice shows as one more
    return Counter(conn.execute(f"SELECT kind, agent FROM ledger_entries WHERE {charges} {where}", args).fetchall())
b = sqlite3.connect(baseline)
once = charged(b, "")
c = sqlite3.connect(db)
tasks = c.execute("SELECT id, status FROM tasks").fetchall()
status = Counter(s for _, s in tasks)
reruns, double = 0, 0
for tid, s in tasks:
    notes = [json.loads(p) for (p,) in c.execute("SELECT payload_json FROM steps WHERE task_id = ? AND kind = 'note'", (tid,))]
    listed = [n["rerun"] for n in notes if isinstance(n, dict) and "rerun" in n]
    reruns += len(listed)
    paid = charged(c, "AND task_id = ?", (tid,))
    for (kind, agent), n in paid.items():
        # What the uninterrupted task paid this agent, plus its calls listed as re-run.
        allowed = once.get((kind, agent), 0) + sum(1 for r in listed if agent in r or (agent == "CEO" and r.startswith("model call")))
        if n > allowed:
            double += 1
            print(f"  task {tid}: {agent} charged {n} x {kind}, expected at most {allowed}")
lost = status.get("running", 0) + status.get("interrupted", 0)
print(f"soak: {minutes} min, {kills} kills")
print(f"submitted {submitted}  accepted {len(tasks)}  completed {status.get('done', 0)}  failed {status.get('failed', 0)}"
      f"  canceled {status.get('canceled', 0)}  lost {lost}  double {double}  reruns {reruns}")
sys.exit(0 if lost == 0 and double == 0 else 1)
EOF
