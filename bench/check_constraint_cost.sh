#!/usr/bin/env bash
# What a CHECK constraint costs a journal insert, by how it is written:
# `kind IN (...)` (SQLite builds a temporary b-tree for the list on every
# statement run), the same list as an OR chain (the journal's schema since
# version 8), and no CHECK at all (the baseline). One million inserts of the
# steps table's last-listed kind per round, the three tables alternating, in
# one run; prints each round and the median ns per insert with its ratio to
# the baseline. Needs the sqlite3 CLI (scripts/install-deps.sh).
# Usage: bench/check_constraint_cost.sh [ROUNDS=5] [ROWS=1000000]
set -euo pipefail
ROUNDS="${1:-5}"
ROWS="${2:-1000000}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
db="$dir/check.db"
list="'llm_request','llm_response','tool_call','tool_result','hire','fire','ask','answer','refusal','error','note'"
chain="kind = 'llm_request' OR kind = 'llm_response' OR kind = 'tool_call' OR kind = 'tool_result' OR kind = 'hire' OR kind = 'fire' OR kind = 'ask' OR kind = 'answer' OR kind = 'refusal' OR kind = 'error' OR kind = 'note'"
sqlite3 "$db" "PRAGMA journal_mode=WAL;
CREATE TABLE in_list (kind TEXT NOT NULL CHECK (kind IN ($list)), n INTEGER);
CREATE TABLE or_chain (kind TEXT NOT NULL CHECK ($chain), n INTEGER);
CREATE TABLE no_check (kind TEXT NOT NULL, n INTEGER);" >/dev/null
declare -A runs
for round in $(seq 1 "$ROUNDS"); do
  for t in no_check or_chain in_list; do
    sqlite3 "$db" "DELETE FROM $t;"
    start=$(date +%s%N)
    sqlite3 "$db" "PRAGMA synchronous=OFF; WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $ROWS)
                   INSERT INTO $t SELECT 'note', i FROM c;"
    ns=$(( ($(date +%s%N) - start) / ROWS ))
    runs[$t]="${runs[$t]:-} $ns"
    echo "round $round $t: $ns ns per insert"
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(echo "${runs[no_check]}" | median)
for t in no_check or_chain in_list; do
  m=$(echo "${runs[$t]}" | median)
  awk -v t="$t" -v m="$m" -v b="$base" 'BEGIN {printf "%-9s median %5d ns per insert, %.2fx no CHECK (+%d ns)\n", t, m, m / b, m - b}'
done
