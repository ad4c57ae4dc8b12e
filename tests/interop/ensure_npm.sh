#!/usr/bin/env bash
# Installs tests/interop's pinned npm packages (npm ci from package-lock.json)
# once, and again only when the lockfile changes. Safe when several interop
# tests start at the same time: they take turns on a lock file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec 9>"$here/.npm-install.lock"
flock 9
stamp="$here/node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ "$here/package-lock.json" -nt "$stamp" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
