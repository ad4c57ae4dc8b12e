#!/usr/bin/env bash
# Installs tests/browser's pinned npm packages (npm ci from package-lock.json)
# once, and again only when the lockfile changes; as tests/interop/ensure_npm.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec 9>"$here/.npm-install.lock"
flock 9
stamp="$here/node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ "$here/package-lock.json" -nt "$stamp" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
