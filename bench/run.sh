#!/usr/bin/env bash
# run.sh [N]: time `skillpack build` on a synthetic tree of N skills (default
# 10000) against the floor (reading and hashing every input byte) and the
# shell pipeline a user would otherwise write, then print the ratios.
#
#   bench/run.sh 10000
#
# Environment: JOBS (default 2) is the number of cores every contender gets:
# skillpack runs with GOMAXPROCS=JOBS --jobs JOBS, the shell pipeline and the
# floors with JOBS workers. SKILLPACK names a binary to measure instead of
# building ./cmd/skillpack. KEEP=1 keeps the temporary folder.
set -Eeuo pipefail

N=${1:-10000}
JOBS=${JOBS:-2}
SMALL=$((N / 5))
if ((SMALL < 1)); then SMALL=1; fi

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/skillpack-bench.XXXXXX")
if [[ ${KEEP:-} == 1 ]]; then
	echo "keeping $TMP" >&2
else
	trap 'rm -rf "$TMP"' EXIT
fi

trap 'echo "run.sh: line $LINENO failed" >&2' ERR

die() {
	echo "run.sh: $*" >&2
	exit 1
}

for tool in tar gzip zip sha256sum xargs find awk; do
	command -v "$tool" >/dev/null || die "$tool is missing; install it (Debian/Ubuntu: apt-get install $tool)"
done
# GNU time gives peak RSS; without it the table shows "-" for memory.
TIME=/usr/bin/time
if ! "$TIME" -f '%e %M' true 2>/dev/null; then
	TIME=
	echo "note: GNU time not found (Debian/Ubuntu: apt-get install time); CPU time and peak RSS are not measured" >&2
fi

echo "building skillpack, gen and floor" >&2
if [[ -n ${SKILLPACK:-} ]]; then
	cp "$SKILLPACK" "$TMP/skillpack"
else
	(cd "$REPO" && go build -o "$TMP/skillpack" ./cmd/skillpack)
fi
(cd "$REPO" && go build -tags bench -o "$TMP/gen" ./bench/gen && go build -tags bench -o "$TMP/floor" ./bench/floor)

TREE=$TMP/skills
echo "generating $N skills" >&2
"$TMP/gen" -n "$N" "$TREE"
# The small tree for the memory check: the first N/5 skills, hard-linked,
# the same bytes as a tree generated with -n N/5.
mkdir "$TMP/small"
(cd "$TREE" && for ((i = 1; i <= SMALL; i++)); do printf 'skill-%05d\n' "$i"; done |
	xargs cp -al -t "$TMP/small")

# Every contender runs with a warm page cache: the question is CPU and
# system calls, not the disk the machine happens to have.
find "$TREE" -type f -print0 | xargs -0 cat >/dev/null

# measure KEY CMD...: run CMD, its stdout and stderr into $TMP/KEY.out and
# .err, and record wall seconds, CPU seconds (user + system, children
# included) and peak RSS (KiB) of the largest single process. On a loaded
# machine wall time depends on the neighbours; CPU time much less so.
declare -A SECS CPU RSS
measure() {
	local key=$1
	shift
	echo "running $key" >&2
	local rc=0
	if [[ -n $TIME ]]; then
		"$TIME" -f '%e %U %S %M' -o "$TMP/$key.time" "$@" >"$TMP/$key.out" 2>"$TMP/$key.err" || rc=$?
		# The last line: on failure GNU time puts the exit status first.
		local user sys
		read -r "SECS[$key]" user sys "RSS[$key]" < <(tail -n 1 "$TMP/$key.time")
		CPU[$key]=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	else
		local start end
		start=$(date +%s.%N)
		"$@" >"$TMP/$key.out" 2>"$TMP/$key.err" || rc=$?
		end=$(date +%s.%N)
		SECS[$key]=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
		CPU[$key]=
		RSS[$key]=
	fi
	if ((rc != 0)); then
		cat "$TMP/$key.err" >&2
		die "$key failed with exit code $rc"
	fi
}

export GOMAXPROCS=$JOBS

measure floor_sh bash -c 'find "$1" -type f -print0 | xargs -0 -P "$2" -n 200 sha256sum >/dev/null' _ "$TREE" "$JOBS"
measure floor_go "$TMP/floor" -j "$JOBS" "$TREE"

OUT=$TMP/dist
rm -rf "$OUT"
measure build "$TMP/skillpack" build "$TREE" -o "$OUT" --jobs "$JOBS"
grep -q "packed" "$TMP/build.err" || die "the build did not report packing: $(cat "$TMP/build.err")"
[[ -f $OUT/.well-known/agent-skills/index.json ]] || die "the build wrote no $OUT/.well-known/agent-skills/index.json"

measure noop "$TMP/skillpack" build "$TREE" -o "$OUT" --jobs "$JOBS"
grep -q "is up to date" "$TMP/noop.err" || die "the no-op rebuild did not say it was up to date: $(cat "$TMP/noop.err")"

# The pipeline a user would write: per skill a tar.gz and a zip with the
# usual reproducibility flags, and sha256sum of every file and both
# archives; JOBS skills at a time. Skills are handed out 50 per bash so that
# the shell pays for tar, gzip, zip and sha256sum, not for starting bash.
SHOUT=$TMP/shell
mkdir "$SHOUT"
cat >"$TMP/one.sh" <<'EOF'
#!/usr/bin/env bash
# one.sh TREE OUT NAME...: pack and checksum each named skill.
set -Eeuo pipefail
tree=$1 out=$2
shift 2
for name; do
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$tree" -cf - "$name" |
		gzip -n >"$out/$name.tar.gz"
	(cd "$tree/$name" && zip -X -q -r "$out/$name.zip" .)
	(cd "$tree/$name" && find . -type f -print0 | sort -z | xargs -0 sha256sum &&
		sha256sum "$out/$name.tar.gz" "$out/$name.zip") >"$out/$name.sha256"
done
EOF
measure shell bash -c 'cd "$1" && find . -mindepth 1 -maxdepth 1 -name "skill-*" -printf "%f\0" |
	xargs -0 -P "$2" -n 50 bash "$3" "$1" "$4"' _ "$TREE" "$JOBS" "$TMP/one.sh" "$SHOUT"
[[ $(find "$SHOUT" -name '*.zip' | wc -l) == "$N" ]] || die "the shell pipeline did not write $N zips"

measure build_small "$TMP/skillpack" build "$TMP/small" -o "$TMP/dist-small" --jobs "$JOBS"

files=$(find "$TREE" -type f | wc -l)
bytes=$(find "$TREE" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)

mib() { if [[ -n ${RSS[$1]} ]]; then awk -v k="${RSS[$1]}" 'BEGIN { printf "%.0f", k / 1024 }'; else echo -; fi; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && a != "-" && b > 0) printf "%.2f", a / b; else print "-" }'; }
verdict() { awk -v r="$1" -v t="$3" -v op="$2" 'BEGIN {
	if (r == "-") print "n/a"
	else if ((op == ">=" && r >= t) || (op == "<=" && r <= t)) print "met"
	else print "MISSED" }'; }

echo
echo "skillpack build benchmark"
echo "  tree: $N skills, $files files, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB (small tree: $SMALL skills)"
echo "  machine: $(nproc) CPUs (${cpu:-unknown}), jobs $JOBS, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
row() { printf '%-46s %8s %8s %13s\n' "$1" "$2" "$3" "$4"; }
line() { row "$1" "${SECS[$2]}" "${CPU[$2]:--}" "$(mib "$2")"; }
row "what" "wall s" "CPU s" "peak RSS MiB"
line "floor: find | xargs -P$JOBS sha256sum" floor_sh
line "floor: Go, $JOBS workers, sha256" floor_go
line "skillpack build (fresh)" build
line "skillpack build (no-op, up to date)" noop
line "shell: tar|gzip -n, zip -X, sha256sum, -P$JOBS" shell
line "skillpack build (fresh, $SMALL skills)" build_small
echo
# check NAME A B OP TARGET: the ratio A/B by wall and by CPU time.
check() {
	local w c
	w=$(ratio "${SECS[$2]}" "${SECS[$3]}")
	c=$(ratio "${CPU[$2]:-}" "${CPU[$3]:-}")
	printf '%-46s %8s %8s  wall %s, CPU %s\n' "$1" "$w" "$c" "$(verdict "$w" "$4" "$5")" "$(verdict "$c" "$4" "$5")"
}
row "ratio" "wall" "CPU" ""
check "shell / build (target >= 5)" shell build '>=' 5
check "no-op / floor sha256sum (target <= 2)" noop floor_sh '<=' 2
check "no-op / floor Go (target <= 2)" noop floor_go '<=' 2
r_mem=$(ratio "${RSS[build]}" "${RSS[build_small]}")
printf '%-46s %8s  %s\n' "peak RSS build $N / build $SMALL (flat: ~1)" "$r_mem" "$(verdict "$r_mem" '<=' 1.5)"
printf '%-46s %8s\n' "peak RSS no-op $N / build $SMALL" "$(ratio "${RSS[noop]}" "${RSS[build_small]}")"
