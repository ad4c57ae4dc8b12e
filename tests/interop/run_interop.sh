#!/usr/bin/env bash
# One interop check between kaisha and a third-party A2A/ACP peer (npm
# packages pinned in tests/interop/package.json, installed here on first use).
#
#   run_interop.sh a2a_server          FIXTURE KAISHA  @a2a-js/sdk client -> kaisha's A2A server
#   run_interop.sh acp_server          FIXTURE KAISHA  acp-sdk client -> kaisha's ACP server
#   run_interop.sh a2a_client_hashiru  FIXTURE KAISHA  kaisha run hires an @a2a-js/sdk agent
#   run_interop.sh a2a_serve           FIXTURE KAISHA  @a2a-js/sdk client -> `kaisha serve` (the real company)
#   run_interop.sh acp_serve           FIXTURE KAISHA  acp-sdk client -> `kaisha serve` (the real company)
#     (a2a_serve / acp_serve are not ctest entries yet: not run against the real company so far)
#
# FIXTURE is the protocol_fixture_server binary, KAISHA the kaisha binary.
# Exit 0 pass, 1 fail, 77 skipped (no node/npm on this machine: run
# scripts/install-deps.sh).
set -uo pipefail
mode=${1:?mode}; fixture=${2:?fixture binary}; kaisha=${3:?kaisha binary}
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "SKIP: node/npm not installed (scripts/install-deps.sh installs them)"; exit 77
fi
bash "$here/ensure_npm.sh" || { echo "FAIL: npm ci in $here failed"; exit 1; }

. "$here/background.sh"

case "$mode" in
  a2a_server|acp_server)
    url=$(start fixture '^READY ' "$fixture") || exit 1
    script=${mode%_server}_client.mjs
    (cd "$here" && node "$script" "$url") || { echo "FAIL: $script against $url"; cat "$work/fixture.err"; exit 1; }
    ;;

  a2a_serve|acp_serve)
    # The same clients against the real company: `kaisha serve` with a CEO
    # scripted in serve_company.yaml to answer like the fixture company.
    mock_url=$(start mock 'listening on' "$kaisha" mock-llm --script "$here/serve_company.yaml" --port 0) || exit 1
    cat >"$work/config.yaml" <<EOF
store: $work/kaisha.db
ceo: { model: "openai:ceo-model" }
providers:
  openai: { base_url: "$mock_url/v1", api_key: mock-key }
retry: { max_attempts: 1 }
EOF
    mcp_url=$(start serve 'MCP at' "$kaisha" serve --http 127.0.0.1:0 --config "$work/config.yaml") || exit 1
    base=${mcp_url%/mcp}
    script=${mode%_serve}_client.mjs
    url=$base; [ "$mode" = acp_serve ] && url=$base/acp
    (cd "$here" && node "$script" "$url") || { echo "FAIL: $script against kaisha serve at $url"; cat "$work/serve.err"; exit 1; }
    "$kaisha" history --config "$work/config.yaml" --json >"$work/history.json" \
      || { echo "FAIL: kaisha history on the served session"; exit 1; }
    grep -q '"status": "canceled"' "$work/history.json" || { echo "FAIL: no canceled task in the journal"; cat "$work/history.json"; exit 1; }
    echo "ok - the tasks the client sent are in the journal of the served session"
    ;;

  a2a_client_hashiru)
    agent_url=$(start agent 'listening at' node "$here/a2a_server.mjs" 0) || exit 1
    mock_url=$(start mock 'listening on' "$kaisha" mock-llm --script "$here/hire_a2a_agent.yaml" --port 0) || exit 1
    # The cost table: the default one plus the JS agent as a hireable model
    # (its model_ref says where it is; its prices are its cost profile).
    cp "$here/../../data/cost_table.yaml" "$work/costs.yaml"
    cat >>"$work/costs.yaml" <<EOF
  js-echo-agent:
    model_ref: "a2a:$agent_url"
    type: cloud
    create_expense_cost: 0
    invoke_expense_cost: 1.0
    output_expense_cost: 2.0
    description: "An A2A agent (@a2a-js/sdk) that answers with an echo of the prompt"
EOF
    cat >"$work/config.yaml" <<EOF
store: $work/kaisha.db
cost_table: $work/costs.yaml
ceo: { model: "gemini:gemini-2.0-flash" }
providers:
  gemini: { base_url: "$mock_url/v1beta", api_key: mock-key }
budget: { expense_total: 5.0 }
EOF
    out=$("$kaisha" run --config "$work/config.yaml" "Ask the echo agent to repeat a greeting" 2>"$work/run.err")
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "js agent echo: Hello from kaisha" <<<"$out"; then
      echo "FAIL: kaisha run (exit $rc) answered: $out"; cat "$work/run.err"; cat "$work/agent.out" "$work/agent.err"; exit 1
    fi
    grep -q "Hello from kaisha" "$work/agent.out" || { echo "FAIL: the JS agent never saw the ask"; cat "$work/agent.out"; exit 1; }
    grep -q "js-echo-agent" "$work/run.err" || { echo "FAIL: no hire of js-echo-agent in the transcript"; cat "$work/run.err"; exit 1; }
    echo "ok - kaisha run hired the @a2a-js/sdk agent at $agent_url and used its answer: $out"
    ;;

  *) echo "unknown mode $mode"; exit 2 ;;
esac
echo "PASS: $mode"
