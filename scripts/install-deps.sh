#!/usr/bin/env bash
# Installs every Debian 12 package kaisha builds, tests and runs with.
# Idempotent: runs apt-get only when a package is missing.
# Usage: scripts/install-deps.sh [--fuzz]
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  libcaf-dev libzmq3-dev cppzmq-dev libmsgpack-cxx-dev
  libcurl4-openssl-dev libsqlite3-dev libssl-dev
  nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libcpp-httplib-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libhnswlib-dev
  # A2A's gRPC binding (protocols/a2a_grpc): gRPC, protobuf, and protoc with its gRPC plugin
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  python3 curl iproute2 bubblewrap
  # scripts/format.sh: the project's C++ style (.clang-format)
  clang-format-14
  # bench/soak_resume.sh checks journals with `PRAGMA integrity_check` through SQLite's own shell
  sqlite3
  # tests/interop/run_a2a_tck.sh: the A2A TCK's runner uses Debian's Python packages
  python3-pytest python3-pytest-asyncio python3-pytest-timeout python3-httpx python3-grpcio
  python3-protobuf python3-jsonschema python3-jinja2 python3-yaml protobuf-compiler libprotobuf-dev
  # tests/browser: the dashboard's tests drive Debian's headless Chromium
  chromium
)

# scripts/fuzz.sh (install-deps.sh --fuzz): clang with the libFuzzer runtime.
# Not part of the default set: building and testing do not need it.
if [ "${1:-}" = "--fuzz" ]; then PACKAGES+=(clang-14 libclang-rt-14-dev); fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Node.js + npm run the third-party protocol testers (tests/interop). A machine
# may already have them from elsewhere (e.g. NodeSource); only then skip Debian's.
if ! command -v npm >/dev/null 2>&1; then missing+=(nodejs npm); fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
