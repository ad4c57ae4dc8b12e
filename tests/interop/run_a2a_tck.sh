#!/usr/bin/env bash
# The official A2A TCK (v1.0 kit, JSON-RPC transport) against `kaisha serve`
# on the real company, with the CEO scripted by serve_company.yaml.
#
#   run_a2a_tck.sh KAISHA [TCK_DIR]
#
# TCK_DIR defaults to ../shared/third_party/a2a-tck beside the repository (the
# kit is not part of the project); its own runner, run-on-debian12.sh, sets it
# up from Debian's Python packages. Every failing TCK test must be listed in
# a2a_tck_expected_failures.txt with the reason it is not a kaisha defect;
# a failure not listed fails this check, and a listed test that passes is
# reported (so the list can shrink).
# Exit 0 pass, 1 fail, 77 skipped (no kit, or its prerequisites missing:
# scripts/install-deps.sh installs them).
set -uo pipefail
kaisha=${1:?kaisha binary}
here=$(cd "$(dirname "$0")" && pwd)
tck=${2:-${KAISHA_A2A_TCK:-$here/../../../shared/third_party/a2a-tck}}
if [ ! -f "$tck/run-on-debian12.sh" ]; then
  echo "SKIP: no A2A TCK at $tck (it lives in shared/third_party beside the repository)"; exit 77
fi
missing=()
for m in pytest pytest_asyncio pytest_timeout httpx grpc google.protobuf jsonschema jinja2 yaml; do
  /usr/bin/python3 -c "import $m" 2>/dev/null || missing+=("python:$m")
done
for c in protoc npm; do command -v "$c" >/dev/null || missing+=("$c"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "SKIP: the A2A TCK needs ${missing[*]} (scripts/install-deps.sh installs them)"; exit 77
fi

. "$here/background.sh"

mock_url=$(start mock 'listening on' "$kaisha" mock-llm --script "$here/serve_company.yaml" --port 0) || exit 1
cat >"$work/config.yaml" <<YAML
store: $work/kaisha.db
ceo: { model: "openai:ceo-model" }
providers:
  openai: { base_url: "$mock_url/v1", api_key: mock-key }
retry: { max_attempts: 1 }
YAML
mcp_url=$(start serve 'MCP at' "$kaisha" serve --http 127.0.0.1:0 --config "$work/config.yaml") || exit 1
base=${mcp_url%/mcp}

(cd "$work" && A2A_TCK_REPORTS="$work/reports" bash "$tck/run-on-debian12.sh" "$base" --transport jsonrpc \
   >"$work/tck.log" 2>&1)
rc=$?
junit="$work/reports/junit.xml"
if [ ! -f "$junit" ]; then
  echo "FAIL: the TCK produced no report (exit $rc):"; tail -40 "$work/tck.log"; exit 1
fi
/usr/bin/python3 - "$junit" "$here/a2a_tck_expected_failures.txt" <<'PY'
import sys, xml.etree.ElementTree as ET
junit, expected_file = sys.argv[1], sys.argv[2]
expected = {}
for line in open(expected_file, encoding="utf-8"):
    line = line.strip()
    if line and not line.startswith("#"):
        name, _, why = line.partition(" ")
        expected[name] = why.strip()
counts = {"passed": 0, "failed": 0, "skipped": 0}
failed = []
for case in ET.parse(junit).getroot().iter("testcase"):
    name = case.get("classname", "").split(".")[-1] + "::" + case.get("name", "")
    if case.find("failure") is not None or case.find("error") is not None:
        counts["failed"] += 1
        failed.append(name)
    elif case.find("skipped") is not None:
        counts["skipped"] += 1
    else:
        counts["passed"] += 1
print("A2A TCK (jsonrpc): %(passed)d passed, %(failed)d failed, %(skipped)d skipped" % counts)
unexpected = [f for f in failed if f not in expected]
for f in failed:
    print(("  expected failure: %s (%s)" % (f, expected[f])) if f in expected else "  FAILED: " + f)
for name in sorted(set(expected) - set(failed)):
    print("  listed as failing but did not fail: " + name)
sys.exit(1 if unexpected else 0)
PY
status=$?
if [ $status -ne 0 ]; then
  echo "FAIL: TCK failures not in a2a_tck_expected_failures.txt; the kit's log:"
  grep -E "^(FAILED|E  )" "$work/tck.log" | head -60
  exit 1
fi
echo "PASS: a2a_tck"
