# Shell functions the soak scripts share (bench/soak_cluster.sh,
# bench/soak_resume.sh). Sourced, not run. Everything runs on loopback: the
# mock LLM and the nodes listen on 127.0.0.1, and no model provider is
# reachable (API keys unset, OLLAMA_HOST a closed port).

# soak_start BUILD_DIR PREFIX: sets $kaisha (the binary), $dir (a fresh temp
# dir) and $kenv, the environment to run kaisha in with no way to a real
# model (`"${kenv[@]}" "$kaisha" ARGS... &`: env execs kaisha, so $! is
# kaisha's own pid, which a SIGKILL must reach); kills the script's
# background jobs still running when it exits, however it exits.
soak_start() {
  kaisha="$(cd "$1" && pwd)/cli/kaisha"
  [ -x "$kaisha" ] || { echo "no kaisha at $kaisha (build first)" >&2; exit 2; }
  dir="$(mktemp -d "/tmp/$2.XXXXXX")"
  kenv=(env -u KAISHA_MODEL -u KAISHA_DB -u OPENAI_API_KEY -u GEMINI_API_KEY -u ANTHROPIC_API_KEY
        "OLLAMA_HOST=127.0.0.1:$(free_port)")
  trap soak_cleanup EXIT
}
# Only jobs not yet reaped: a pid reaped long ago may belong to anyone now.
soak_cleanup() { local p; for p in $(jobs -p); do kill -9 "$p" 2> /dev/null || true; done; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_mock SCRIPT LOG: serves SCRIPT on a free loopback port; sets
# $mock_pid and $mock_base (http://127.0.0.1:PORT). Waits at most 10 s.
start_mock() {
  "$kaisha" mock-llm --script "$1" --port 0 > "$2" 2>&1 &
  mock_pid=$!
  mock_base=""
  for _ in $(seq 100); do
    mock_base="$(sed -n 's/^mock-llm listening on \(http:[^ ]*\).*/\1/p' "$2" | head -1)"
    [ -n "$mock_base" ] && return 0
    sleep 0.1
  done
  echo "the mock LLM did not start:" >&2
  cat "$2" >&2
  exit 2
}

# company_yaml STORE COSTS [EXTRA_YAML] [CEO_MODEL=openai:ceo-model]: a
# company whose every provider is the mock.
company_yaml() {
  cat <<EOF
store: $1
cost_table: $2
ceo: { model: ${4:-openai:ceo-model} }
providers:
  ollama: { base_url: $mock_base, timeout_ms: 10000 }
  gemini: { base_url: $mock_base/v1beta, api_key: mock-key, timeout_ms: 10000 }
  openai: { base_url: $mock_base/v1, api_key: mock-key, timeout_ms: 10000 }
budget: { resource_mode: fixed, resource_total: 1000000, expense_total: 1000000 }
${3:-}
EOF
}

# The cluster's task: the CEO hires a poet (llama3.2) and a lawyer (mistral),
# asks both, fires both and reports. write_poet_lawyer SCRIPT COSTS
write_poet_lawyer() {
  cat > "$1" <<'EOF'
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
  cat > "$2" <<'EOF'
models:
  ceo-model: { model_ref: openai:ceo-model, type: cloud, invoke_expense_cost: 100, output_expense_cost: 400, description: "CEO" }
  llama3.2: { model_ref: ollama:llama3.2, type: local, create_resource_cost: 10, invoke_resource_cost: 10, create_expense_cost: 0.5, invoke_expense_cost: 1000, output_expense_cost: 2000, description: "Poet" }
  mistral: { model_ref: ollama:mistral, type: local, create_resource_cost: 20, invoke_resource_cost: 20, create_expense_cost: 0.25, invoke_expense_cost: 500, output_expense_cost: 1000, description: "Lawyer" }
EOF
}
poet_lawyer_task="Write a river haiku and check clause 7"

# write_cluster_yaml FILE COMPANY: a CEO node (ceo-model), a node serving
# llama3.2 and one serving mistral, on free loopback ports; sets the arrays
# $node_names and $node_ports.
write_cluster_yaml() {
  node_names=(ceo poets lawyers)
  node_ports=("$(free_port)" "$(free_port)" "$(free_port)")
  local models=("[ceo-model]" "[llama3.2]" "[mistral]")
  {
    echo "company: $2"
    echo "cluster:"
    echo "  allow_plaintext: true"
    echo "  seeds: [tcp://127.0.0.1:${node_ports[0]}]"
    echo "nodes:"
    for i in 0 1 2; do
      echo "  ${node_names[$i]}:"
      echo "    bind: tcp://127.0.0.1:${node_ports[$i]}"
      echo "    resource_units: 1000"
      echo "    ceo: $([ "$i" = 0 ] && echo true || echo false)"
      echo "    models: ${models[$i]}"
    done
  } > "$1"
}

# start_node CLUSTER_YAML NAME: starts the node in the background, its log
# appended to $dir/NAME.log; its pid in ${node_pid[NAME]}.
declare -A node_pid
start_node() {
  "${kenv[@]}" "$kaisha" node --config "$1" --name "$2" -q >> "$dir/$2.log" 2>&1 &
  node_pid[$2]=$!
}

# kill_node NAME: SIGKILL, and reaped.
kill_node() {
  kill -9 "${node_pid[$1]}" 2>/dev/null || true
  wait "${node_pid[$1]}" 2>/dev/null || true
}

# charges_beyond BASELINE_DB DB [TASK_ID]: for every task of DB (or only
# TASK_ID), one line
#   TASK_ID STATUS SAME_ANSWER REPAID RERUNS UNEXPLAINED
# SAME_ANSWER 1 when its answer is the (only) task's of BASELINE_DB; REPAID the
# expense ledger's charges beyond the baseline's, counted by kind and agent;
# RERUNS the calls the journal lists as run again after a resume; UNEXPLAINED
# the charges beyond the baseline's plus those re-runs (must be 0).
charges_beyond() {
  local where="" charges="ledger = 'expense' AND kind IN ('ask_settle', 'hire', 'tool_settle', 'tool_create', 'ceo_call')"
  [ -n "${3:-}" ] && where="WHERE t.id = '$3'"
  # The sqlite3 shell, not python: it starts in milliseconds on a loaded machine.
  sqlite3 -readonly -separator ' ' "$2" <<EOF
ATTACH '$1' AS b;
WITH once AS (SELECT kind, agent, count(*) AS n FROM b.ledger_entries WHERE $charges GROUP BY kind, agent),
     paid AS (SELECT task_id, kind, agent, count(*) AS n FROM main.ledger_entries WHERE $charges
              GROUP BY task_id, kind, agent),
     reruns AS (SELECT task_id, r FROM (SELECT task_id, CASE WHEN json_valid(payload_json)
                  THEN json_extract(payload_json, '\$.rerun') END AS r FROM main.steps WHERE kind = 'note')
                WHERE r IS NOT NULL),
     -- A re-run names its agent ("ask Poet", "model call of Poet"), an audit
     -- is the judge's, and a bare "model call ..." may be anyone's.
     excess AS (SELECT p.task_id, p.n - coalesce(o.n, 0) AS beyond,
                       (SELECT count(*) FROM reruns x WHERE x.task_id = p.task_id AND
                          (instr(x.r, p.agent) > 0 OR x.r LIKE 'model call%' OR
                           (p.agent = 'Judge' AND x.r LIKE 'audit of%'))) AS listed
                FROM paid p LEFT JOIN once o ON o.kind = p.kind AND o.agent = p.agent)
SELECT t.id, t.status, t.final_answer = (SELECT final_answer FROM b.tasks LIMIT 1),
       coalesce((SELECT sum(max(beyond, 0)) FROM excess e WHERE e.task_id = t.id), 0),
       (SELECT count(*) FROM reruns x WHERE x.task_id = t.id),
       coalesce((SELECT sum(max(beyond - listed, 0)) FROM excess e WHERE e.task_id = t.id), 0)
FROM main.tasks t $where ORDER BY t.started_at, t.rowid;
EOF
}

# integrity DB: "ok", or the first line of what PRAGMA integrity_check answered.
integrity() {
  local out
  out="$(sqlite3 -readonly "$1" 'PRAGMA integrity_check' 2>&1 | head -1)"
  echo "${out:-no answer}"
}
