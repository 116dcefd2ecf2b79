#!/usr/bin/env bash
# How soon does `skillpack serve DIST --watch SKILLS` show an edit, and what
# does it cost while nothing changes?
#
#   bench/watch.sh            # 2000 skills, 10 edits
#   bench/watch.sh 5000 20    # N skills, E edits
#
# It generates N skills (bench/gen), starts serve --watch on them, and E
# times appends a line to one SKILL.md and measures the time until GET of
# that SKILL.md returns the new bytes: file notification, rebuild (reusing
# every unchanged skill), checking the new bundle, and the swap. Then it
# measures the CPU the server uses over 10 idle seconds. Needs Go and curl.
# SKILLPACK=/path/to/skillpack measures a prebuilt binary; KEEP=1 keeps the
# temporary folder.
set -euo pipefail

N=${1:-2000}
EDITS=${2:-10}
REPO=$(cd "$(dirname "$0")/.." && pwd)
command -v curl >/dev/null || { echo "watch.sh: needs curl (apt-get install curl)" >&2; exit 1; }

TMP=$(mktemp -d)
PID=
cleanup() {
	[[ -n $PID ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	[[ ${KEEP:-} == 1 ]] && echo "kept $TMP" >&2 || rm -rf "$TMP"
}
trap cleanup EXIT

if [[ -n ${SKILLPACK:-} ]]; then
	cp "$SKILLPACK" "$TMP/skillpack"
else
	(cd "$REPO" && go build -o "$TMP/skillpack" ./cmd/skillpack)
fi
(cd "$REPO" && go build -tags bench -o "$TMP/gen" ./bench/gen)
echo "generating $N skills" >&2
"$TMP/gen" -n "$N" "$TMP/skills" >/dev/null

PORT=$((20000 + RANDOM % 10000))
began=$(date +%s.%N)
"$TMP/skillpack" -q serve "$TMP/dist" --watch "$TMP/skills" --addr "127.0.0.1:$PORT" 2>"$TMP/serve.log" &
PID=$!
URL="http://127.0.0.1:$PORT/.well-known/agent-skills/skill-00001/SKILL.md"
until curl -fsS -o /dev/null "$URL" 2>/dev/null; do
	kill -0 "$PID" 2>/dev/null || { cat "$TMP/serve.log" >&2; exit 1; }
	sleep 0.05
done
first=$(echo "$(date +%s.%N) - $began" | bc)
watching=$(grep -c "polling" "$TMP/serve.log" || true)
[[ $watching == 0 ]] && how="file notifications" || how="polling"

md="$TMP/skills/skill-00001/SKILL.md"
times=()
for i in $(seq 1 "$EDITS"); do
	sleep 0.5 # let the previous rebuild settle
	mark="edit-$i-$RANDOM"
	t0=$(date +%s.%N)
	printf '\n%s\n' "$mark" >>"$md"
	until curl -fsS "$URL" 2>/dev/null | grep -q "$mark"; do
		sleep 0.005
	done
	times+=("$(echo "$(date +%s.%N) - $t0" | bc)")
done

ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
hz=$(getconf CLK_TCK)
c0=$(ticks)
sleep 10
c1=$(ticks)

sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
worst=$(echo "$sorted" | tail -1)
printf 'serve --watch on %d skills (%s)\n' "$N" "$how"
printf '  first build and serve:  %.2f s\n' "$first"
printf '  edit to served, median: %.3f s  (worst of %d: %.3f s)\n' "$median" "$EDITS" "$worst"
printf '  idle CPU over 10 s:     %.2f%% of a core\n' "$(echo "($c1 - $c0) * 100 / $hz / 10" | bc -l)"
