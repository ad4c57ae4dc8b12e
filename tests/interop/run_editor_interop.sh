#!/usr/bin/env bash
# `kaisha editor` driven by the Agent Client Protocol's own client
# (@agentclientprotocol/sdk, pinned in package.json) over a real child
# process, with the scripted mock LLM (editor_company.yaml) as the CEO's model.
#
#   run_editor_interop.sh KAISHA MCP_TEST_SERVER
#
# MCP_TEST_SERVER (tests/protocols/mcp/mcp_test_server.cpp) is the MCP server
# the client passes to session/new.
#
# Exit 0 pass, 1 fail, 77 skipped (no node/npm on this machine).
set -uo pipefail
kaisha=${1:?kaisha binary}
mcp_server=${2:?mcp_test_server binary}
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "SKIP: node/npm not installed (scripts/install-deps.sh installs them)"; exit 77
fi
bash "$here/ensure_npm.sh" || { echo "FAIL: npm ci in $here failed"; exit 1; }

. "$here/background.sh"

mock_url=$(start mock 'listening on' "$kaisha" mock-llm --script "$here/editor_company.yaml" --port 0) || exit 1
mkdir -p "$work/project"
# No store in the config: kaisha editor keeps its journal under the directory
# it runs in (.kaisha/kaisha.db), which the client checks.
cat >"$work/config.yaml" <<YAML
ceo: { model: "openai:ceo-model" }
providers:
  openai: { base_url: "$mock_url/v1", api_key: mock-key }
retry: { max_attempts: 1 }
YAML
# The same company planning with effgen: a planner, two workers and a judge.
cat >"$work/effgen.yaml" <<YAML
ceo: { model: "openai:ceo-model" }
strategy: effgen
effgen: { planner_model: "openai:planner-7b", worker_model: llama3.2, max_concurrent: 2 }
judge: { model: "openai:judge-7b" }
providers:
  openai: { base_url: "$mock_url/v1", api_key: mock-key }
  ollama: { base_url: "$mock_url" }
budget: { resource_mode: fixed, resource_total: 400, expense_total: 10 }
retry: { max_attempts: 1 }
# A memory store of its own: the memory a finished effgen task stores must
# not reach the other sections' CEO, whose scripted turns match the user's
# message.
memory: { path: "$work/effgen.memory.db" }
YAML
# A priced CEO under a budget too small for one model call.
cat >"$work/budget.yaml" <<YAML
ceo: { model: "gemini:gemini-2.0-flash" }
providers:
  gemini: { base_url: "$mock_url/v1beta", api_key: mock-key }
budget: { expense_total: 0.000001 }
retry: { max_attempts: 1 }
YAML
(cd "$here" && node editor_client.mjs "$kaisha" "$work/config.yaml" "$work/project" "$work/effgen.yaml" "$mcp_server" "$work/budget.yaml") \
  || { echo "FAIL: editor_client.mjs"; exit 1; }
echo "PASS: editor"
