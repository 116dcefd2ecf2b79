#!/usr/bin/env bash
# run.sh [N...]: time `skillpack build` on synthetic trees of N skills
# (default 10000) against the floors (reading and hashing every input byte;
# for a fresh build, also writing a copy of every file and each skill's
# deflated stream twice: bench/floor -fresh) and the shell pipeline a user would otherwise write, then print the
# ratios. Each N gets two trees: a clean one, which lint passes with no
# findings, and a findings one, the same skills each with a lint warning and
# a lint info (gen -findings). Several N are measured one after the other,
# with one binary, and a table each.
#
#   bench/run.sh 10000
#   bench/run.sh 3000 10000
#
# Environment: JOBS (default 2) is the number of cores every contender gets:
# skillpack runs with GOMAXPROCS=JOBS --jobs JOBS, the shell pipeline and the
# floors with JOBS workers. SKILLPACK names a binary to measure instead of
# building ./cmd/skillpack. KEEP=1 keeps the temporary folder.
set -Eeuo pipefail

if (($# == 0)); then set -- 10000; fi
for n; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: N must be a positive number, not $n" >&2; exit 2; }
done
JOBS=${JOBS:-2}

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
	# As the release builds it (.goreleaser.yaml): encoding/json is v2's.
	(cd "$REPO" && GOEXPERIMENT=jsonv2 go build -trimpath -o "$TMP/skillpack" ./cmd/skillpack)
fi
(cd "$REPO" && go build -tags bench -o "$TMP/gen" ./bench/gen && go build -tags bench -o "$TMP/floor" ./bench/floor)
# Every contender runs in $TMP: a working directory deleted under a long
# run (a scratch checkout) would fail the next skillpack, which calls getwd.
cd "$TMP"

# --no-reuse (rebuild every skill, reuse nothing from the previous bundle)
# is measured only when the binary has it.
NOREUSE=
if help=$("$TMP/skillpack" build --help 2>&1) && [[ $help == *--no-reuse* ]]; then
	NOREUSE=1
fi

# FINDINGS_PER_SKILL is what gen -findings puts into every skill: one
# script-not-executable warning and one file-unreferenced info
# (bench.FindingsRules).
FINDINGS_PER_SKILL=2

# The pipeline a user would write: per skill a tar.gz and a zip with the
# usual reproducibility flags, and sha256sum of every file and both
# archives; JOBS skills at a time. Skills are handed out 50 per bash so that
# the shell pays for tar, gzip, zip and sha256sum, not for starting bash.
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

# measure KEY CMD...: run CMD, its stdout and stderr into $W/KEY.out and
# .err, and record wall seconds, CPU seconds (user + system, children
# included) and peak RSS (KiB) of the largest single process. On a loaded
# machine wall time depends on the neighbours; CPU time much less so.
declare -A SECS CPU RSS
W=
measure() {
	local key=$1
	shift
	echo "running $key" >&2
	local rc=0
	if [[ -n $TIME ]]; then
		"$TIME" -f '%e %U %S %M' -o "$W/$key.time" "$@" >"$W/$key.out" 2>"$W/$key.err" || rc=$?
		# The last line: on failure GNU time puts the exit status first.
		local user sys
		read -r "SECS[$key]" user sys "RSS[$key]" < <(tail -n 1 "$W/$key.time")
		CPU[$key]=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	else
		local start end
		start=$(date +%s.%N)
		"$@" >"$W/$key.out" 2>"$W/$key.err" || rc=$?
		end=$(date +%s.%N)
		SECS[$key]=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
		CPU[$key]=
		RSS[$key]=
	fi
	if ((rc != 0)); then
		cat "$W/$key.err" >&2
		die "$key failed with exit code $rc"
	fi
}

# findings KEY: the finding lines of KEY's stderr ("PATH: SEVERITY: MESSAGE
# [RULE]", and "    also at N more places: …" under one that recurs),
# without the progress, tally and timing lines around them.
findings() { grep -E '^[^ ].*: (error|warning|info): .* \[[a-z0-9-]+\]$|^    also at [0-9]+ more places: ' "$W/$1.err" || true; }
# count_findings FILE: how many findings the lines of findings stand for.
count_findings() { awk '/^    also at / { n += $3; next } { n++ } END { print n + 0 }' "$1"; }

mib() { if [[ -n ${RSS[$1]:-} ]]; then awk -v k="${RSS[$1]}" 'BEGIN { printf "%.0f", k / 1024 }'; else echo -; fi; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && a != "-" && b > 0) printf "%.2f", a / b; else print "-" }'; }
verdict() { awk -v r="$1" -v t="$3" -v op="$2" 'BEGIN {
	if (r == "-") print "n/a"
	else if (op == "") print ""
	else if ((op == ">=" && r >= t) || (op == "<=" && r <= t)) print "met"
	else print "MISSED" }'; }
row() { printf '%-50s %8s %8s %13s\n' "$1" "$2" "$3" "$4"; }
line() { row "$1" "${SECS[$2]}" "${CPU[$2]:--}" "$(mib "$2")"; }
# check NAME A B [OP TARGET]: the ratio A/B by wall and by CPU time, and
# whether it meets the target when there is one.
check() {
	local w c
	w=$(ratio "${SECS[$2]}" "${SECS[$3]}")
	c=$(ratio "${CPU[$2]:-}" "${CPU[$3]:-}")
	if (($# > 3)); then
		printf '%-50s %8s %8s  wall %s, CPU %s\n' "$1" "$w" "$c" "$(verdict "$w" "$4" "$5")" "$(verdict "$c" "$4" "$5")"
	else
		printf '%-50s %8s %8s\n' "$1" "$w" "$c"
	fi
}

export GOMAXPROCS=$JOBS

# bench N: generate the trees of N skills under $TMP/N, measure every
# contender on them and print the table.
bench() {
	local n=$1
	local small=$((n / 5))
	if ((small < 1)); then small=1; fi
	W=$TMP/$n
	mkdir "$W"
	SECS=() CPU=() RSS=()
	local tree=$W/skills ftree=$W/findings mtree=$W/market

	echo "generating $n skills, clean and with findings" >&2
	"$TMP/gen" -n "$n" "$tree"
	"$TMP/gen" -n "$n" -findings "$ftree"
	"$TMP/gen" -n "$n" -marketplace "$mtree"
	# The small tree for the memory check: the first N/5 skills, hard-linked,
	# the same bytes as a tree generated with -n N/5.
	mkdir "$W/small"
	(cd "$tree" && for ((i = 1; i <= small; i++)); do printf 'skill-%05d\n' "$i"; done |
		xargs cp -al -t "$W/small")

	# Every contender runs with a warm page cache: the question is CPU and
	# system calls, not the disk the machine happens to have.
	find "$tree" "$ftree" "$mtree" -type f -print0 | xargs -0 cat >/dev/null

	measure floor_sh bash -c 'find "$1" -type f -print0 | xargs -0 -P "$2" -n 200 sha256sum >/dev/null' _ "$tree" "$JOBS"
	measure floor_go "$TMP/floor" -j "$JOBS" "$tree"
	measure floor_sh_f bash -c 'find "$1" -type f -print0 | xargs -0 -P "$2" -n 200 sha256sum >/dev/null' _ "$ftree" "$JOBS"
	measure floor_go_f "$TMP/floor" -j "$JOBS" "$ftree"
	# The fresh-build floors write as many files as a build; their folders
	# are kept, as the bundles are (see "Which disk" in bench/README.md).
	measure floor_fresh "$TMP/floor" -j "$JOBS" -fresh "$W/floor-fresh" "$tree"
	measure floor_fresh_f "$TMP/floor" -j "$JOBS" -fresh "$W/floor-fresh-f" "$ftree"
	# The same files, bytes and digest as the read+hash floor, or it did not
	# read every file.
	[[ $(cat "$W/floor_fresh.out") == "$(cat "$W/floor_go.out")" ]] || die "the fresh-build floor read other files than the Go floor"

	local out=$W/dist fout=$W/dist-findings
	measure build "$TMP/skillpack" build "$tree" -o "$out" --jobs "$JOBS"
	grep -q "packed" "$W/build.err" || die "the build did not report packing: $(cat "$W/build.err")"
	[[ -f $out/.well-known/agent-skills/index.json ]] || die "the build wrote no $out/.well-known/agent-skills/index.json"

	measure noop "$TMP/skillpack" build "$tree" -o "$out" --jobs "$JOBS"
	grep -q "is up to date" "$W/noop.err" || die "the no-op rebuild did not say it was up to date: $(cat "$W/noop.err")"

	measure build_f "$TMP/skillpack" build "$ftree" -o "$fout" --jobs "$JOBS"
	[[ -f $fout/.well-known/agent-skills/index.json ]] || die "the build of the findings tree wrote no $fout/.well-known/agent-skills/index.json"
	measure noop_f "$TMP/skillpack" build "$ftree" -o "$fout" --jobs "$JOBS"
	grep -q "is up to date" "$W/noop_f.err" || die "the no-op rebuild of the findings tree did not say it was up to date: $(cat "$W/noop_f.err")"
	# The no-op must report what the fresh build reported, every finding.
	findings build_f >"$W/build_f.findings"
	findings noop_f >"$W/noop_f.findings"
	local nf
	nf=$(count_findings "$W/build_f.findings")
	((nf == n * FINDINGS_PER_SKILL)) ||
		die "the fresh build of the findings tree printed $nf findings, want $((n * FINDINGS_PER_SKILL)) ($FINDINGS_PER_SKILL a skill)"
	if ! diff -q "$W/build_f.findings" "$W/noop_f.findings" >/dev/null; then
		diff "$W/build_f.findings" "$W/noop_f.findings" | head -n 20 >&2
		die "the no-op rebuild of the findings tree printed other findings than the fresh build"
	fi

	# The same skills, a plugin each in one marketplace: what plugins and
	# the marketplace cost over the skills (each plugin is packed too). A
	# ratio that grows with N is work that grows faster than the plugins.
	measure lint "$TMP/skillpack" lint "$tree"
	measure lint_m "$TMP/skillpack" lint "$mtree"
	measure build_m "$TMP/skillpack" build "$mtree" -o "$W/dist-market" --jobs "$JOBS"
	[[ $(find "$W/dist-market/.well-known/agent-plugins" -maxdepth 1 -name 'plugin-*.zip' | wc -l) == "$n" ]] ||
		die "the marketplace build did not publish $n plugin archives: $(tail -n 5 "$W/build_m.err")"

	local shout=$W/shell
	mkdir "$shout"
	measure shell bash -c 'cd "$1" && find . -mindepth 1 -maxdepth 1 -name "skill-*" -printf "%f\0" |
		xargs -0 -P "$2" -n 50 bash "$3" "$1" "$4"' _ "$tree" "$JOBS" "$TMP/one.sh" "$shout"
	[[ $(find "$shout" -name '*.zip' | wc -l) == "$n" ]] || die "the shell pipeline did not write $n zips"

	measure build_small "$TMP/skillpack" build "$W/small" -o "$W/dist-small" --jobs "$JOBS"

	# Last: it replaces the whole bundle, and deleting that many files slows
	# the file creation of whatever runs next on this VM (README.md).
	if [[ -n $NOREUSE ]]; then
		measure noreuse "$TMP/skillpack" build "$tree" -o "$out" --jobs "$JOBS" --no-reuse
		if grep -q "is up to date" "$W/noreuse.err"; then
			die "build --no-reuse said it was up to date: $(cat "$W/noreuse.err")"
		fi
	fi

	local files bytes ffiles fbytes cpu
	files=$(find "$tree" -type f | wc -l)
	bytes=$(find "$tree" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
	ffiles=$(find "$ftree" -type f | wc -l)
	fbytes=$(find "$ftree" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
	cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)

	echo
	echo "skillpack build benchmark"
	echo "  tree: $n skills, $files files, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB (small tree: $small skills)"
	echo "  findings tree: the same skills with a warning and an info each, $ffiles files, $(awk -v b="$fbytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB"
	echo "  machine: $(nproc) CPUs (${cpu:-unknown}), jobs $JOBS, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	row "what" "wall s" "CPU s" "peak RSS MiB"
	line "floor: find | xargs -P$JOBS sha256sum" floor_sh
	line "floor: Go, $JOBS workers, sha256" floor_go
	line "floor: fresh build (read, hash, deflate, write)" floor_fresh
	line "skillpack build (fresh)" build
	line "skillpack build (no-op, up to date)" noop
	if [[ -n $NOREUSE ]]; then
		line "skillpack build --no-reuse (no-op tree)" noreuse
	fi
	line "shell: tar|gzip -n, zip -X, sha256sum, -P$JOBS" shell
	line "skillpack build (fresh, $small skills)" build_small
	line "findings tree: floor sha256sum" floor_sh_f
	line "findings tree: floor Go" floor_go_f
	line "findings tree: floor fresh build" floor_fresh_f
	line "findings tree: skillpack build (fresh)" build_f
	line "findings tree: skillpack build (no-op)" noop_f
	line "skillpack lint" lint
	line "marketplace tree: skillpack lint" lint_m
	line "marketplace tree: skillpack build (fresh)" build_m
	echo
	row "ratio" "wall" "CPU" ""
	check "shell / build (target >= 10)" shell build '>=' 10
	check "no-op / floor sha256sum (target <= 1.5)" noop floor_sh '<=' 1.5
	check "no-op / floor Go (target <= 1.5)" noop floor_go '<=' 1.5
	check "fresh build / floor fresh (target <= 1.5)" build floor_fresh '<=' 1.5
	check "findings: no-op / floor sha256sum (target <= 1.2)" noop_f floor_sh_f '<=' 1.2
	check "findings: no-op / floor Go (target <= 1.2)" noop_f floor_go_f '<=' 1.2
	check "findings: fresh build / floor fresh (target <= 1.5)" build_f floor_fresh_f '<=' 1.5
	check "findings / clean, fresh build" build_f build
	check "findings / clean, no-op" noop_f noop
	check "marketplace / plain, lint" lint_m lint
	check "marketplace / plain, fresh build" build_m build
	if [[ -n $NOREUSE ]]; then
		check "build --no-reuse / fresh build" noreuse build
	fi
	local r_mem
	r_mem=$(ratio "${RSS[build]}" "${RSS[build_small]}")
	printf '%-50s %8s  %s\n' "peak RSS build $n / build $small (flat: ~1)" "$r_mem" "$(verdict "$r_mem" '<=' 1.5)"
	printf '%-50s %8s\n' "peak RSS no-op $n / build $small" "$(ratio "${RSS[noop]}" "${RSS[build_small]}")"
	printf '%-50s %8s\n' "peak RSS findings / clean, fresh build" "$(ratio "${RSS[build_f]}" "${RSS[build]}")"
	printf '%-50s %8s\n' "peak RSS findings / clean, no-op" "$(ratio "${RSS[noop_f]}" "${RSS[noop]}")"
	printf '%-50s %8s\n' "peak RSS marketplace / plain, fresh build" "$(ratio "${RSS[build_m]}" "${RSS[build]}")"
	echo "findings tree: fresh build and no-op printed the same $nf findings"
}

for n; do
	bench "$n"
done
