#!/usr/bin/env bash
# serve.sh: requests/s and p99 latency of `skillpack serve` against nginx
# serving the same built bundle on the same machine, in one run, with wrk
# as the load generator. Three paths (the discovery index, one SKILL.md,
# one archive of about 1 MiB), each at 50 and 1,000 connections; the two
# servers take turns on every cell, and the table gives the ratios
# skillpack/nginx against the targets (requests/s >= 0.8, p99 <= 1.5).
#
#   bench/serve.sh
#   DURATION=3s bench/serve.sh        # a quick look
#
# Each cell is measured ROUNDS times (default 3) on each server, the two
# taking turns, and the table gives the median of the rounds' requests/s
# and of their p99s: one run's p99 on two shared CPUs moves by half from
# one run to the next.
#
# Environment: DURATION (default 10s) is each wrk run, WARMUP (default 2s)
# each path's warm-up on each server; CONNS (default "50 1000") the
# connection counts, THREADS (default 2) wrk's threads, TIMEOUT (default
# 10s) wrk's request timeout; SKILLS (default 100) the size of the tree
# (bench/gen) and so of index.json; NGINX_WORKERS (default: the number of
# CPUs) nginx's worker_processes. SKILLPACK names a binary to measure
# instead of building ./cmd/skillpack. KEEP=1 keeps the temporary folder,
# with the nginx.conf, the servers' logs and every wrk output.
#
# PACED (default 0.5) adds a second measurement of each cell at the same
# load on both servers: each connection waits between an answer and its
# next request (wrk's delay(), in whole milliseconds) so long that it
# would offer PACED times nginx's requests/s in the first measurement if
# answers took no time, and the table compares the two p99s at that load.
# At full speed wrk measures its own share of the CPUs too: a server that
# answers more requests leaves wrk less time to read them, and wrk counts
# the wait as latency. PACED=0 leaves it out.
#
# PIN=1 puts wrk on CPU 0 and both servers on the others (taskset), so
# that the load generator does not take CPU time from the server it
# measures, nor the server from it (on two shared CPUs, a server that
# answers faster leaves wrk less time to read its answers, which wrk
# counts as the server's latency). nginx then gets one worker per CPU
# left (unless NGINX_WORKERS says otherwise) and Go one P per CPU left.
set -Eeuo pipefail

DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
CONNS=${CONNS:-50 1000}
THREADS=${THREADS:-2}
TIMEOUT=${TIMEOUT:-10s}
SKILLS=${SKILLS:-100}
ROUNDS=${ROUNDS:-3}
PACED=${PACED:-0.5}
PIN=${PIN:-0}
[[ $PIN == 0 || $PIN == 1 ]] || {
	echo "serve.sh: PIN must be 0 or 1, not $PIN" >&2
	exit 2
}
if [[ $PIN == 1 ]]; then
	(($(nproc) >= 2)) || {
		echo "serve.sh: PIN=1 needs two CPUs, one for wrk and one for the servers; this machine has $(nproc)" >&2
		exit 2
	}
	NGINX_WORKERS=${NGINX_WORKERS:-$(($(nproc) - 1))}
fi
NGINX_WORKERS=${NGINX_WORKERS:-$(nproc)}

die() {
	echo "serve.sh: $*" >&2
	exit 1
}
usage() {
	echo "serve.sh: $*" >&2
	exit 2
}

(($# == 0)) || usage "takes no arguments, only environment variables (see the top of bench/serve.sh)"
for v in DURATION WARMUP TIMEOUT; do
	[[ ${!v} =~ ^[1-9][0-9]*[smh]?$ ]] || usage "$v must be a wrk duration such as 10s, not ${!v}"
done
for v in THREADS SKILLS NGINX_WORKERS ROUNDS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || usage "$v must be a positive number, not ${!v}"
done
[[ $PACED =~ ^(0|0?\.[0-9]+|1(\.0*)?)$ ]] || usage "PACED must be a fraction of nginx's requests/s from 0 (no paced runs) to 1, such as 0.5, not $PACED"
read -r -a conns <<<"$CONNS"
((${#conns[@]} > 0)) || usage "CONNS names no connection count"
maxconns=0
for c in "${conns[@]}"; do
	[[ $c =~ ^[1-9][0-9]*$ ]] || usage "CONNS must be positive numbers, not $c"
	((c >= THREADS)) || usage "every connection count must be at least THREADS ($THREADS), not $c"
	if ((c > maxconns)); then maxconns=$c; fi
done

# Every tool missing is named at once, with the line that installs them:
# the script measures, it installs nothing.
NGINX=$(command -v nginx || true)
if [[ -z $NGINX && -x /usr/sbin/nginx ]]; then NGINX=/usr/sbin/nginx; fi
missing=()
[[ -n $NGINX ]] || missing+=(nginx)
for tool in wrk curl; do
	command -v "$tool" >/dev/null || missing+=("$tool")
done
if [[ $PIN == 1 ]]; then
	command -v taskset >/dev/null || missing+=(util-linux)
fi
if ((${#missing[@]} > 0)); then
	die "missing: ${missing[*]}; install (Debian/Ubuntu): apt-get install ${missing[*]}"
fi
for tool in awk head sha256sum; do
	command -v "$tool" >/dev/null || die "$tool is missing"
done
[[ -n ${SKILLPACK:-} ]] || command -v go >/dev/null || die "go is missing: install Go, or set SKILLPACK to a built skillpack"

# 1,000 connections need 1,000 descriptors in wrk and in each server, and
# more in nginx, which holds open files in its cache.
NOFILE=$((maxconns * 2 + 1024))
if (($(ulimit -n) < NOFILE)); then
	ulimit -n "$NOFILE" 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
	if (($(ulimit -n) < maxconns + 64)); then
		echo "note: the open-file limit is $(ulimit -n) and cannot be raised (ulimit -Hn); runs at $maxconns connections will show socket errors" >&2
	fi
fi

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/skillpack-serve-bench.XXXXXX")
SP_PID='' NG_PID=''
# cleanup stops both servers, whatever state the run ended in, then removes
# the folder: a benchmark must not leave a server listening.
cleanup() {
	local pid
	for pid in $SP_PID $NG_PID; do kill "$pid" 2>/dev/null || true; done
	for pid in $SP_PID $NG_PID; do wait "$pid" 2>/dev/null || true; done
	if [[ ${KEEP:-} == 1 ]]; then
		echo "kept $TMP" >&2
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'echo "serve.sh: line $LINENO failed" >&2' ERR

echo "building skillpack and gen" >&2
if [[ -n ${SKILLPACK:-} ]]; then
	cp "$SKILLPACK" "$TMP/skillpack"
else
	(cd "$REPO" && go build -o "$TMP/skillpack" ./cmd/skillpack)
fi
(cd "$REPO" && go build -tags bench -o "$TMP/gen" ./bench/gen)
cd "$TMP"

# The tree: SKILLS skills from bench/gen, and one more whose archive is
# about 1 MiB because its asset is 1 MiB of random bytes, which gzip cannot
# shrink. The bytes differ from run to run; their size does not.
BIG=bench-archive
echo "generating $SKILLS skills and $BIG" >&2
"$TMP/gen" -n "$SKILLS" "$TMP/skills"
mkdir -p "$TMP/skills/$BIG/assets"
head -c 1048576 /dev/urandom >"$TMP/skills/$BIG/assets/random.bin"
cat >"$TMP/skills/$BIG/SKILL.md" <<'EOF'
---
name: bench-archive
description: The serve benchmark's large skill, whose archive is about one megabyte because its asset is random bytes.
---

# Large archive

The asset [random.bin](assets/random.bin) holds 1 MiB of random bytes.
EOF
DIST=$TMP/dist
"$TMP/skillpack" build "$TMP/skills" -o "$DIST" >"$TMP/build.log" 2>&1 || {
	cat "$TMP/build.log" >&2
	die "skillpack build failed"
}

# The paths, from what the build wrote: the index, the first skill's
# SKILL.md and the archive the index names for the large skill.
AS=.well-known/agent-skills
[[ -f $DIST/$AS/index.json ]] || die "the build wrote no $AS/index.json"
[[ -f $DIST/$AS/skill-00001/SKILL.md ]] || die "the build wrote no $AS/skill-00001/SKILL.md"
archive=$(awk -v want="$BIG" '
	/"name":/ { name = $0; sub(/.*"name": *"/, "", name); sub(/".*/, "", name) }
	/"url":/ && name == want { url = $0; sub(/.*"url": *"/, "", url); sub(/".*/, "", url); print url; exit }
' "$DIST/$AS/index.json")
archive=${archive##*/}
[[ $archive == *.tar.gz && -f $DIST/$AS/$archive ]] || die "index.json names no .tar.gz archive for $BIG in $AS (found '$archive')"
paths=("/$AS/index.json" "/$AS/skill-00001/SKILL.md" "/$AS/$archive")
labels=(index.json SKILL.md "$BIG .tar.gz")

# free_port: a port on 127.0.0.1 that nothing answers on now.
free_port() {
	local p
	for ((p = 20000 + RANDOM % 20000; ; p++)); do
		if ! (: <>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
}
SP_PORT=$(free_port)
NG_PORT=$(free_port)
while ((NG_PORT == SP_PORT)); do NG_PORT=$(free_port); done

# nginx as a static host would be set up for this bundle, with the headers
# `skillpack serve` sends (the CORS and cache headers of the bundle's
# _headers file) so that both answer with the same bytes and the same
# headers, which the run checks before it measures. Everything nginx writes
# (pid, lock, error log, temp folders) is under its prefix in $TMP. As root
# the workers run as root, as the temporary folder is private to its owner.
NG=$TMP/nginx
mkdir -p "$NG/tmp"
user_line=
if ((EUID == 0)); then user_line='user root root;'; fi
# Go's listener takes the kernel's somaxconn as its backlog; nginx gets the
# same, not its default of 511, so that 1,000 clients connecting at once
# meet the same queue.
backlog=$(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo 4096)
cat >"$NG/nginx.conf" <<EOF
# Written by bench/serve.sh for one run.
$user_line
worker_processes $NGINX_WORKERS;
worker_rlimit_nofile $NOFILE;
daemon off;
pid $NG/nginx.pid;
lock_file $NG/nginx.lock;
error_log $NG/error.log warn;

events {
    worker_connections $NOFILE;
}

http {
    access_log off;
    client_body_temp_path $NG/tmp/body;
    proxy_temp_path $NG/tmp/proxy;
    fastcgi_temp_path $NG/tmp/fastcgi;
    uwsgi_temp_path $NG/tmp/uwsgi;
    scgi_temp_path $NG/tmp/scgi;

    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65s;
    # skillpack serve (Go's net/http) keeps a connection for any number of
    # requests; nginx's default closes it after 1,000.
    keepalive_requests 1000000;
    open_file_cache max=10000 inactive=60s;
    open_file_cache_valid 60s;
    open_file_cache_errors on;
    server_tokens off;
    gzip off;

    types {
        application/json json;
        "text/markdown; charset=utf-8" md;
        application/gzip gz;
        application/zip zip;
        "text/html; charset=utf-8" html;
        "text/plain; charset=utf-8" txt;
    }
    default_type application/octet-stream;

    map \$uri \$skillpack_cache_control {
        "~\\.(tar\\.gz|zip)\$" "public, max-age=31536000, immutable";
        "~^/\\.well-known/(agent-skills|skills)/[^/]+/" "public, max-age=3600, must-revalidate";
        default "public, max-age=300, must-revalidate";
    }

    server {
        listen 127.0.0.1:$NG_PORT backlog=$backlog;
        root $DIST;
        add_header Access-Control-Allow-Origin "*" always;
        add_header Access-Control-Expose-Headers "ETag, Content-Range, Accept-Ranges" always;
        add_header X-Content-Type-Options nosniff always;
        add_header Cache-Control \$skillpack_cache_control always;
        location / {
            try_files \$uri =404;
        }
    }
}
EOF
"$NGINX" -t -q -p "$NG" -c "$NG/nginx.conf" -e "$NG/error.log" 2>"$NG/test.log" || {
	cat "$NG/test.log" >&2
	die "nginx refused $NG/nginx.conf"
}

# on_servers and on_wrk run a command on the CPUs PIN gives it, or as is.
# on_servers is only started in the background, and execs the server (as
# taskset does), so that $! is the server's PID and cleanup stops the
# server, not a subshell that leaves it running.
on_servers() { exec "$@"; }
on_wrk() { "$@"; }
if [[ $PIN == 1 ]]; then
	on_servers() { exec taskset -c "1-$(($(nproc) - 1))" "$@"; }
	on_wrk() { taskset -c 0 "$@"; }
fi

echo "starting skillpack serve on 127.0.0.1:$SP_PORT and nginx on 127.0.0.1:$NG_PORT" >&2
# -q: no request log, as nginx runs with access_log off.
on_servers "$TMP/skillpack" -q serve "$DIST" --addr "127.0.0.1:$SP_PORT" >"$TMP/skillpack.log" 2>&1 &
SP_PID=$!
on_servers "$NGINX" -p "$NG" -c "$NG/nginx.conf" -e "$NG/error.log" >"$NG/stderr.log" 2>&1 &
NG_PID=$!

# ready NAME PID LOG URL: wait until URL answers, or fail with the server's
# log if it exits (a port taken since free_port) or takes 30 s.
ready() {
	local i
	for ((i = 0; i < 300; i++)); do
		if ! kill -0 "$2" 2>/dev/null; then
			cat "$3" >&2
			die "$1 exited before it answered"
		fi
		if curl -fsS -o /dev/null "$4" 2>/dev/null; then return; fi
		sleep 0.1
	done
	cat "$3" >&2
	die "$1 did not answer $4 within 30 s"
}
ready "skillpack serve" "$SP_PID" "$TMP/skillpack.log" "http://127.0.0.1:$SP_PORT${paths[0]}"
ready nginx "$NG_PID" "$NG/error.log" "http://127.0.0.1:$NG_PORT${paths[0]}"

# Both must answer every path with the same body and the headers a client
# acts on, or the comparison measures two different things.
header() { awk -v h="$1" -F': ' 'tolower($1) == h { sub(/\r$/, "", $2); print $2 }' "$2"; }
for i in "${!paths[@]}"; do
	for s in sp ng; do
		port=$SP_PORT
		if [[ $s == ng ]]; then port=$NG_PORT; fi
		curl -fsS -D "$TMP/check-$s.h" -o "$TMP/check-$s.body" "http://127.0.0.1:$port${paths[i]}" ||
			die "127.0.0.1:$port${paths[i]} failed"
	done
	cmp -s "$TMP/check-sp.body" "$TMP/check-ng.body" || die "skillpack serve and nginx send different bodies for ${paths[i]}"
	for h in content-type cache-control access-control-allow-origin; do
		a=$(header "$h" "$TMP/check-sp.h") b=$(header "$h" "$TMP/check-ng.h")
		[[ $a == "$b" ]] || die "${paths[i]}: skillpack serve sends $h '$a', nginx '$b'"
	done
	sizes[i]=$(wc -c <"$TMP/check-sp.body")
done

mkdir "$TMP/wrk"
# run KEY PORT PATH CONNS DURATION [SCRIPT]: wrk into $TMP/wrk/KEY, with a
# Lua script if given.
run() {
	local script=()
	if (($# > 5)); then script=(-s "$6"); fi
	on_wrk wrk -t"$THREADS" -c"$4" -d"$5" --timeout "$TIMEOUT" --latency "${script[@]}" "http://127.0.0.1:$2$3" >"$TMP/wrk/$1" 2>&1 ||
		{
			cat "$TMP/wrk/$1" >&2
			die "wrk failed on 127.0.0.1:$2$3"
		}
}

echo "warming up: each path for $WARMUP on each server" >&2
for i in "${!paths[@]}"; do
	run "warm-sp-$i" "$SP_PORT" "${paths[i]}" "${conns[0]}" "$WARMUP"
	run "warm-ng-$i" "$NG_PORT" "${paths[i]}" "${conns[0]}" "$WARMUP"
done

# rps, p99 (in ms) and errors of one wrk output; a non-2xx answer means the
# run measured something else and stops it.
rps() { awk '/^Requests\/sec:/ { print $2 }' "$TMP/wrk/$1"; }
p99() {
	awk '$1 == "99%" {
		v = $2 + 0; u = $2; sub(/^[0-9.]+/, "", u)
		if (u == "us") v /= 1000; else if (u == "s") v *= 1000; else if (u == "m") v *= 60000
		printf "%.2f", v }' "$TMP/wrk/$1"
}
errors() { awk '/Socket errors:/ { gsub(/,/, ""); print "connect " $4 ", read " $6 ", write " $8 ", timeout " $10 }' "$TMP/wrk/$1"; }
check() {
	if grep -q 'Non-2xx or 3xx responses' "$TMP/wrk/$1"; then
		cat "$TMP/wrk/$1" >&2
		die "$1: the server answered with errors"
	fi
	[[ -n $(rps "$1") && -n $(p99 "$1") ]] || {
		cat "$TMP/wrk/$1" >&2
		die "$1: no Requests/sec or 99% line in wrk's output"
	}
}

# The servers take turns on each cell, and which goes first alternates, so
# that a neighbour's load or the machine warming up favours neither.
server() { if [[ $1 == sp ]]; then echo "skillpack serve"; else echo nginx; fi; }
cell=0
notes=()
# measure KIND: every cell, ROUNDS rounds on each server, into
# $TMP/wrk/KIND-SERVER-CONNS-PATH-ROUND; the paced runs with their cell's
# script ($TMP/pace-CONNS-PATH.lua).
measure() {
	local kind=$1 c i r s port key script
	for c in "${conns[@]}"; do
		for i in "${!paths[@]}"; do
			script=()
			if [[ $kind == paced ]]; then script=("$TMP/pace-$c-$i.lua"); fi
			for ((r = 1; r <= ROUNDS; r++)); do
				order=(sp ng)
				if ((cell % 2 == 1)); then order=(ng sp); fi
				for s in "${order[@]}"; do
					port=$SP_PORT
					if [[ $s == ng ]]; then port=$NG_PORT; fi
					key=$kind-$s-$c-$i-$r
					echo "measuring ${labels[i]} at $c connections ($kind), $(server "$s"), round $r of $ROUNDS, $DURATION" >&2
					run "$key" "$port" "${paths[i]}" "$c" "$DURATION" "${script[@]}"
					check "$key"
					e=$(errors "$key")
					[[ -z $e ]] || notes+=("$(server "$s"), ${labels[i]}, $c connections ($kind), round $r: socket errors $e")
				done
				cell=$((cell + 1))
			done
		done
	done
}

# median FN KEY: the median over the rounds of FN (rps or p99) of KEY.
median() {
	local r
	for ((r = 1; r <= ROUNDS; r++)); do "$1" "$2-$r"; echo; done |
		sort -g | awk 'NF { v[++n] = $1 } END { if (n % 2) print v[(n + 1) / 2]; else printf "%.2f\n", (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
verdict() { awk -v r="$1" -v p="$2" 'BEGIN {
	rm = (r != "-" && r >= 0.8); pm = (p != "-" && p <= 1.5)
	if (rm && pm) print "met"; else if (pm) print "MISSED rps"; else if (rm) print "MISSED p99"; else print "MISSED both" }'; }
kib() { awk -v b="$1" 'BEGIN { if (b >= 1048576) printf "%.2f MiB", b / 1048576; else printf "%.1f KiB", b / 1024 }'; }

measure full
# The paced runs: each cell's wait, in whole milliseconds (wrk's delay()),
# is what makes its connections offer PACED times nginx's requests/s.
declare -A waits=()
if awk -v f="$PACED" 'BEGIN { exit !(f > 0) }'; then # 0, 0.0, .00: none
	for c in "${conns[@]}"; do
		for i in "${!paths[@]}"; do
			waits[$c-$i]=$(awk -v c="$c" -v r="$(median rps "full-ng-$c-$i")" -v f="$PACED" 'BEGIN { w = int(c * 1000 / (f * r) + 0.5); if (w < 1) w = 1; print w }')
			echo "function delay() return ${waits[$c-$i]} end" >"$TMP/pace-$c-$i.lua"
		done
	done
	measure paced
fi

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
commit=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n ${SKILLPACK:-} ]]; then
	built="$SKILLPACK"
elif git -C "$REPO" diff-index --quiet HEAD -- 2>/dev/null; then
	built="commit $commit"
else
	built="commit $commit with uncommitted changes"
fi

echo
echo "skillpack serve against nginx, same bundle, same machine"
echo "  skillpack: $built"
echo "  nginx: $("$NGINX" -v 2>&1 | sed 's/^nginx version: //'), $NGINX_WORKERS workers, sendfile, open_file_cache; wrk: $THREADS threads, $DURATION a run (after $WARMUP warm-up), timeout $TIMEOUT; the median of $ROUNDS rounds"
echo "  bundle: $SKILLS skills + $BIG; index.json $(kib "${sizes[0]}"), SKILL.md $(kib "${sizes[1]}"), archive $(kib "${sizes[2]}")"
shared="wrk and both servers share them"
if [[ $PIN == 1 ]]; then shared="wrk on CPU 0, the servers on CPUs 1-$(($(nproc) - 1)) (PIN=1)"; fi
echo "  machine: $(nproc) CPUs (${cpu:-unknown}), load average $(cut -d' ' -f1-3 /proc/loadavg); $shared"
echo "  target: rps ratio (skillpack/nginx) >= 0.8 and p99 ratio (skillpack/nginx) <= 1.5"
echo
fmt='%-22s %6s %12s %12s %6s %12s %12s %6s  %s\n'
# shellcheck disable=SC2059 # fmt is the one format of every row
printf "$fmt" path conns "skillpack rps" "nginx rps" ratio "skillpack p99" "nginx p99" ratio verdict
for c in "${conns[@]}"; do
	for i in "${!paths[@]}"; do
		sr=$(median rps "full-sp-$c-$i") nr=$(median rps "full-ng-$c-$i") sp=$(median p99 "full-sp-$c-$i") np=$(median p99 "full-ng-$c-$i")
		rr=$(ratio "$sr" "$nr") pr=$(ratio "$sp" "$np")
		# shellcheck disable=SC2059
		printf "$fmt" "${labels[i]}" "$c" "$sr" "$nr" "$rr" "$sp ms" "$np ms" "$pr" "$(verdict "$rr" "$pr")"
	done
done
if ((${#waits[@]} > 0)); then
	echo
	echo "At the same load: each connection waits between an answer and its next request, so that"
	echo "it would offer $PACED times nginx's requests/s above if answers took no time (target: p99 ratio <= 1.5)"
	echo
	pfmt='%-22s %6s %8s %12s %12s %12s %12s %6s  %s\n'
	# shellcheck disable=SC2059 # pfmt is the one format of every row
	printf "$pfmt" path conns wait "skillpack rps" "nginx rps" "skillpack p99" "nginx p99" ratio verdict
	for c in "${conns[@]}"; do
		for i in "${!paths[@]}"; do
			sr=$(median rps "paced-sp-$c-$i") nr=$(median rps "paced-ng-$c-$i") sp=$(median p99 "paced-sp-$c-$i") np=$(median p99 "paced-ng-$c-$i")
			pr=$(ratio "$sp" "$np")
			v=met
			if [[ $pr == - ]] || awk -v p="$pr" 'BEGIN { exit !(p > 1.5) }'; then v="MISSED p99"; fi
			# shellcheck disable=SC2059
			printf "$pfmt" "${labels[i]}" "$c" "${waits[$c-$i]} ms" "$sr" "$nr" "$sp ms" "$np ms" "$pr" "$v"
		done
	done
fi
if ((${#notes[@]} > 0)); then
	echo
	printf '%s\n' "${notes[@]}"
fi
