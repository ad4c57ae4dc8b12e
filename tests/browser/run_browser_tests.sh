#!/usr/bin/env bash
# The dashboard's browser tests (dashboard.test.mjs): Debian's Chromium
# driven by playwright-core (pinned in package.json, installed here with
# `npm ci`), against `kaisha serve --http` over the scripted mock LLM.
#
#   run_browser_tests.sh KAISHA SCREENSHOT_DIR
#
# Exit 0 pass, 1 fail, 77 skipped: Chromium, node or npm missing on a
# developer's machine (scripts/install-deps.sh installs them). Under CI
# (the CI variable set) a missing piece fails instead of skipping.
set -uo pipefail
kaisha=${1:?kaisha binary}; shots=${2:?screenshot directory}
here=$(cd "$(dirname "$0")" && pwd)
chromium=${CHROMIUM:-/usr/bin/chromium}

missing() {
  if [ -n "${CI:-}" ]; then echo "FAIL: $1 (under CI the browser tests never skip)"; exit 1; fi
  echo "SKIP: $1 (scripts/install-deps.sh installs it)"; exit 77
}
[ -x "$chromium" ] || missing "no Chromium at $chromium"
command -v node >/dev/null && command -v npm >/dev/null || missing "node/npm not installed"
bash "$here/../interop/ensure_npm.sh" "$here" || missing "npm ci in $here failed"
[ -f "$here/node_modules/playwright-core/package.json" ] || missing "playwright-core is not installed in $here/node_modules"

mkdir -p "$shots"
cd "$here" && KAISHA_EXE="$kaisha" SCREENSHOT_DIR="$shots" CHROMIUM="$chromium" \
  node --test --test-reporter=spec dashboard.test.mjs
