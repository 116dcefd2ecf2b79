#!/usr/bin/env bash
# serve_floor.sh: is what keeps `skillpack serve` from nginx on a cell
# skillpack's own, or Go's? One cell of bench/serve.sh (one SKILL.md, 50
# connections by default) measured on three servers taking turns in one
# run: skillpack serve, nginx, and bench/httpfloor, the least a Go server
# can do (one body in memory, written after the same headers skillpack
# sends; no parsing but where a request ends, no deadline, no log). The
# table gives each server's median requests/s and p99 over the rounds and
# the ratios skillpack/floor and floor/nginx: skillpack near the floor
# means the code has nothing left to remove on that cell.
#
#   bench/serve_floor.sh
#   CONNS=1000 ROUNDS=5 bench/serve_floor.sh
#
# Environment: DURATION (default 10s) each wrk run, ROUNDS (default 3),
# CONNS (default 50), THREADS (default 2) wrk's threads; SKILLS (default
# 100) the tree's size (bench/gen); SKILLPACK a binary to measure instead
# of building ./cmd/skillpack; NGINX_WORKERS (default: the CPUs). KEEP=1
# keeps the temporary folder. Needs wrk, nginx and curl.
set -Eeuo pipefail

DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-50}
THREADS=${THREADS:-2}
SKILLS=${SKILLS:-100}
NGINX_WORKERS=${NGINX_WORKERS:-$(nproc)}

die() {
	echo "serve_floor.sh: $*" >&2
	exit 1
}
(($# == 0)) || die "takes no arguments, only environment variables (see the top of bench/serve_floor.sh)"
for v in ROUNDS CONNS THREADS SKILLS NGINX_WORKERS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive number, not ${!v}"
done
NGINX=$(command -v nginx || true)
if [[ -z $NGINX && -x /usr/sbin/nginx ]]; then NGINX=/usr/sbin/nginx; fi
for tool in wrk curl; do
	command -v "$tool" >/dev/null || die "$tool is not installed (apt-get install wrk nginx curl)"
done
[[ -n $NGINX ]] || die "nginx is not installed (apt-get install nginx)"

REPO=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/skillpack-serve-floor.XXXXXX")
pids=()
cleanup() {
	trap '' INT TERM
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [[ ${KEEP:-} == 1 ]]; then echo "kept $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

SP=${SKILLPACK:-}
if [[ -z $SP ]]; then
	SP=$TMP/skillpack
	(cd "$REPO" && go build -o "$SP" ./cmd/skillpack)
fi
(cd "$REPO" && go build -tags bench -o "$TMP/httpfloor" ./bench/httpfloor && go run -tags bench ./bench/gen -n "$SKILLS" "$TMP/tree" >/dev/null)
"$SP" -q build "$TMP/tree" -o "$TMP/dist"
path=/.well-known/agent-skills/skill-00001/SKILL.md
[[ -f $TMP/dist$path ]] || die "the bundle has no $path"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000)); }
SP_PORT=$(free_port)
NG_PORT=$(free_port)
FL_PORT=$(free_port)

"$SP" -q serve "$TMP/dist" --addr "127.0.0.1:$SP_PORT" >"$TMP/skillpack.log" 2>&1 &
pids+=($!)
mkdir -p "$TMP/nginx"
# As root, nginx's workers would run as nobody, who cannot read the
# temporary folder (private to its owner); they run as root instead.
user_line=
if ((EUID == 0)); then user_line='user root root;'; fi
cat >"$TMP/nginx/nginx.conf" <<CONF
$user_line
worker_processes $NGINX_WORKERS;
worker_rlimit_nofile 65536;
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/error.log;
daemon off;
events { worker_connections 65536; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    open_file_cache max=10000 inactive=60s;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
    types { text/markdown md; }
    client_body_temp_path $TMP/nginx; proxy_temp_path $TMP/nginx; fastcgi_temp_path $TMP/nginx; uwsgi_temp_path $TMP/nginx; scgi_temp_path $TMP/nginx;
    server { listen 127.0.0.1:$NG_PORT; root $TMP/dist; }
}
CONF
"$NGINX" -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -e "$TMP/nginx/error.log" >"$TMP/nginx/stderr.log" 2>&1 &
pids+=($!)

ready() {
	local i
	for ((i = 0; i < 300; i++)); do
		curl -fsS -o /dev/null "http://127.0.0.1:$1$path" 2>/dev/null && return
		sleep 0.1
	done
	die "nothing answers on 127.0.0.1:$1 (logs in $TMP; KEEP=1 keeps them)"
}
ready "$SP_PORT"
ready "$NG_PORT"
# The floor sends skillpack's own headers, so the same bytes go out.
curl -fsS -D "$TMP/headers" -o "$TMP/body" "http://127.0.0.1:$SP_PORT$path"
"$TMP/httpfloor" -addr "127.0.0.1:$FL_PORT" -headers "$TMP/headers" -body "$TMP/body" >"$TMP/httpfloor.log" 2>&1 &
pids+=($!)
ready "$FL_PORT"
for port in "$NG_PORT" "$FL_PORT"; do
	curl -fsS -o "$TMP/check" "http://127.0.0.1:$port$path"
	cmp -s "$TMP/check" "$TMP/body" || die "127.0.0.1:$port sends another body for $path"
done

declare -A port=([sp]=$SP_PORT [ng]=$NG_PORT [fl]=$FL_PORT)
declare -A name=([sp]="skillpack serve" [ng]=nginx [fl]="Go floor")
mkdir "$TMP/wrk"
run() { wrk -t"$THREADS" -c"$CONNS" -d"$2" --latency "http://127.0.0.1:${port[$1]}$path" >"$TMP/wrk/$3" 2>&1 || die "wrk failed on ${name[$1]}: $(tail -3 "$TMP/wrk/$3")"; }
for s in sp ng fl; do run "$s" 2s "warm-$s"; done
order=(sp ng fl)
for ((r = 1; r <= ROUNDS; r++)); do
	for s in "${order[@]}"; do
		echo "round $r of $ROUNDS: ${name[$s]}, $DURATION" >&2
		run "$s" "$DURATION" "$s-$r"
		grep -q 'Non-2xx' "$TMP/wrk/$s-$r" && die "${name[$s]} answered with errors"
	done
	order=("${order[@]:1}" "${order[0]}") # each server goes first in turn
done

rps() { awk '/^Requests\/sec:/ { print $2 }' "$TMP/wrk/$1"; }
p99() { awk '$1 == "99%" { v = $2 + 0; u = $2; sub(/^[0-9.]+/, "", u); if (u == "us") v /= 1000; else if (u == "s") v *= 1000; printf "%.2f", v }' "$TMP/wrk/$1"; }
median() {
	local r
	for ((r = 1; r <= ROUNDS; r++)); do "$1" "$2-$r"; echo; done |
		sort -g | awk 'NF { v[++n] = $1 } END { if (n % 2) print v[(n + 1) / 2]; else printf "%.2f\n", (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
declare -A R P
for s in sp ng fl; do R[$s]=$(median rps "$s") P[$s]=$(median p99 "$s"); done

echo
echo "SKILL.md ($(wc -c <"$TMP/body") bytes) at $CONNS connections; wrk $THREADS threads, $DURATION a run, the median of $ROUNDS rounds; $(nproc) CPUs shared by wrk and the servers; nginx $NGINX_WORKERS workers"
echo
printf '%-16s %12s %9s\n' server requests/s "p99 ms"
for s in sp fl ng; do printf '%-16s %12.0f %9.2f\n' "${name[$s]}" "${R[$s]}" "${P[$s]}"; done
echo
echo "skillpack / Go floor: requests/s $(ratio "${R[sp]}" "${R[fl]}"), p99 $(ratio "${P[sp]}" "${P[fl]}")"
echo "Go floor / nginx:     requests/s $(ratio "${R[fl]}" "${R[ng]}"), p99 $(ratio "${P[fl]}" "${P[ng]}")"
echo "skillpack / nginx:    requests/s $(ratio "${R[sp]}" "${R[ng]}"), p99 $(ratio "${P[sp]}" "${P[ng]}") (target: >= 0.8 and <= 1.5)"
