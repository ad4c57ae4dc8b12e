#!/usr/bin/env bash
# The Debian package end to end, as root: cpack -G DEB in BUILD_DIR (default
# build), apt-get install of the package, examples/embed built and run against
# it (scripts/run_embed_examples.sh), apt-get remove. The package installs
# under KAISHA_PACKAGE_PREFIX (/usr unless the build says otherwise). Prints
# the seconds each stage took (docs/library.md).
# Usage: scripts/check_deb.sh [BUILD_DIR]
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
prefix="$(sed -n 's/^KAISHA_PACKAGE_PREFIX:PATH=//p' "$build/CMakeCache.txt")"
prefix="${prefix:-/usr}"
work="$(mktemp -d)"
installed=""
trap '[ -n "$installed" ] && apt-get remove -y -qq kaisha >/dev/null; rm -rf "$work"' EXIT
now() { date +%s%N; }
took() { local ms=$((($(now) - $2) / 1000000)); printf '%s: %d.%d s\n' "$1" $((ms / 1000)) $((ms % 1000 / 100)); }

if dpkg-query -W -f='${Status}' kaisha 2>/dev/null | grep -q "install ok installed"; then
  echo "check_deb: a kaisha package is already installed; remove it first" >&2
  exit 1
fi
t=$(now)
cmake --build "$build" --target kaisha_install_set >/dev/null
took "build (kaisha and its libraries)" "$t"
t=$(now)
rm -f "$build"/kaisha_*.deb
(cd "$build" && cpack -G DEB >"$work/cpack.log") || { cat "$work/cpack.log"; exit 1; }
took "cpack" "$t"
deb="$(ls "$build"/kaisha_*.deb)"
dpkg-deb --field "$deb" Package Version Depends
t=$(now)
installed=yes
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null
took "apt-get install" "$t"
bash "$src/scripts/run_embed_examples.sh" "$prefix" "$work"
t=$(now)
apt-get remove -y -qq kaisha >/dev/null
installed=""
took "apt-get remove" "$t"
if [ -e "$prefix/bin/kaisha" ] || [ -e "$prefix/share/kaisha" ]; then
  echo "check_deb: files left under $prefix after apt-get remove" >&2
  exit 1
fi
