# Background processes for the interop scripts, sourced by each of them.
# Sets $work (a fresh folder). `start NAME PATTERN CMD...` runs CMD in the
# background (stdout to $work/NAME.out, stderr to $work/NAME.err), waits up to
# 20 s for a stdout line matching PATTERN and prints its last word (the URL).
# `track PID` adds a process started by hand. On exit every one is killed and
# waited for, then $work is removed.

work=$(mktemp -d)

# start() runs in a command substitution (a subshell), so the pids of what it
# starts are kept in a file for cleanup to find.
track() { echo "$1" >>"$work/pids"; }

cleanup() {
  if [ -f "$work/pids" ]; then
    while read -r p; do kill "$p" 2>/dev/null; done <"$work/pids"
    # They are not all this shell's children: wait for them to exit before
    # removing the folder they write in.
    for _ in $(seq 1 100); do
      alive=0
      while read -r p; do kill -0 "$p" 2>/dev/null && alive=1; done <"$work/pids"
      [ $alive -eq 0 ] && break
      sleep 0.05
    done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

start() {
  local name=$1 pattern=$2; shift 2
  "$@" >"$work/$name.out" 2>"$work/$name.err" &
  local pid=$!
  track "$pid"
  for _ in $(seq 1 400); do
    local line
    line=$(grep -m1 -E "$pattern" "$work/$name.out" 2>/dev/null) && { echo "${line##* }"; return 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "FAIL: $name did not start:" >&2; cat "$work/$name.out" "$work/$name.err" >&2
  return 1
}
