#!/usr/bin/env bash
# Installs the pinned npm packages of a test folder (npm ci from its
# package-lock.json) once, and again only when the lockfile changes. Safe when
# several tests start at the same time: they take turns on a lock file.
# Usage: ensure_npm.sh [DIR]   (default: tests/interop, this script's folder)
set -euo pipefail
here=$(cd "${1:-$(dirname "$0")}" && pwd)
exec 9>"$here/.npm-install.lock"
flock 9
stamp="$here/node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ "$here/package-lock.json" -nt "$stamp" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
