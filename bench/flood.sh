#!/usr/bin/env bash
# bench/flood.sh [CLIENTS] [DURATION]: skillpack serve's memory under a
# flood of MCP clients (issue 30: 20,000 at once must leave its RSS under
# 200 MB).
#
# HTTP: CLIENTS (default 20000) clients of bench/mcpload at once, each on
# its own connection, reading every file of examples/ over stateless
# streamable HTTP for DURATION (default 15s), against serve with its
# default --max-connections and, as the baseline in the same run, with no
# bound to speak of. The load comes from processes of 10,000 clients each,
# so that neither side needs more than 20,000 open files.
# stdio: CLIENTS×10 requests written to serve --stdio as fast as the pipe
# takes them, read back slowly.
# Prints each peak RSS (VmHWM) and the bounded/unbounded ratio.
set -euo pipefail
n=${1:-20000}
d=${2:-15s}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
sp=
trap '[ -z "$sp" ] || kill "$sp" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$root"
go build -o "$work/skillpack" ./cmd/skillpack
go build -tags bench -o "$work/mcpload" ./bench/mcpload
"$work/skillpack" build examples -o "$work/dist" -q

port=$((20000 + RANDOM % 20000))
peak() { awk '/VmHWM/ {printf "%d", $2/1024}' "/proc/$1/status"; }

# http ARGS...: peak RSS in MB of serve with ARGS under the flood.
http() {
  "$work/skillpack" serve "$work/dist" --addr "127.0.0.1:$port" -q "$@" 2>/dev/null &
  sp=$!
  for _ in $(seq 100); do
    curl -fs -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && break
    sleep 0.1
  done
  local left=$n pids=()
  while [ "$left" -gt 0 ]; do
    local c=$((left < 10000 ? left : 10000))
    "$work/mcpload" -url "http://127.0.0.1:$port/mcp" -method read -c "$c" -d "$d" >>"$work/load.txt" 2>&1 &
    pids+=($!)
    left=$((left - c))
  done
  wait "${pids[@]}" || true
  peak "$sp"
  kill "$sp"
  wait "$sp" 2>/dev/null || true
  sp=
}

bounded=$(http)
unbounded=$(http --max-connections 1000000)
echo "HTTP, $n MCP clients at once for $d:"
echo "  serve (default --max-connections): peak RSS $bounded MB"
echo "  serve (no bound, the baseline):     peak RSS $unbounded MB"
echo "  ratio bounded/unbounded: $(echo "scale=2; $bounded/$unbounded" | bc)"
echo "  load (per load process): $(tr '\n' ';' <"$work/load.txt")"

# stdio: requests as fast as the pipe takes them, answers read slowly.
m=$((n * 10))
for ((i = 0; i < m; i++)); do
  printf '{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}\n' "$i"
done | /usr/bin/time -f %M -o "$work/stdio.rss" "$work/skillpack" serve "$work/dist" --stdio -q |
  while read -r _; do :; done
echo "stdio, $m requests written at once: peak RSS $(($(cat "$work/stdio.rss") / 1024)) MB"
