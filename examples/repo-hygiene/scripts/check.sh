#!/bin/sh
# check.sh: report repository hygiene problems that review tends to miss.
#
# Usage: sh scripts/check.sh [-s KIB] [DIR]
#
# Checks tracked and new, not ignored files (every file outside git):
#   - leftover merge conflict markers
#   - files larger than KIB kibibytes (default 1024)
#   - CRLF line endings in scripts (they break the shebang)
#   - scripts with a shebang but no exec bit
#   - paths that differ only in case (they collide on macOS and Windows)
#
# Prints one "path[:line]: problem" line per finding. Exit status: 0 clean,
# 1 problems found, 2 usage error. POSIX sh; reads files, never writes them.

set -u
# Bytes, not characters: tr, grep and sort must not trip over invalid UTF-8.
LC_ALL=C
export LC_ALL

usage() {
	echo "usage: sh scripts/check.sh [-s KIB] [DIR]"
}

limit=1024
while getopts s:h opt; do
	case $opt in
	s) limit=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -gt 1 ]; then
	usage >&2
	exit 2
fi
case $limit in
'' | *[!0-9]*)
	echo "check.sh: -s wants a whole number of KiB, not '$limit'" >&2
	exit 2
	;;
esac
dir=${1:-.}
cd "$dir" 2>/dev/null || {
	echo "check.sh: $dir: not a folder I can enter; pass the repository root" >&2
	exit 2
}

tab=$(printf '\t')
cr=$(printf '\r')
max=$((limit * 1024))
list=$(mktemp) || exit 2
trap 'rm -f "$list"' EXIT
trap 'exit 2' HUP INT TERM

# One "MODE<TAB>PATH" line per file. core.quotePath=false keeps non-ASCII
# names readable; names holding newlines or tabs are not supported.
with_mode() {
	while IFS= read -r f; do
		if [ -x "$f" ]; then m=100755; else m=100644; fi
		printf '%s\t%s\n' "$m" "$f"
	done
}
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Tracked files carry the mode git will commit; new files that are not
	# ignored are checked too, since they are about to be added.
	git -c core.quotePath=false ls-files --stage |
		while IFS= read -r line; do
			printf '%s\t%s\n' "${line%% *}" "${line#*"$tab"}"
		done >"$list"
	git -c core.quotePath=false ls-files --others --exclude-standard |
		with_mode >>"$list"
else
	find . -type d -name .git -prune -o -type f -print | sed 's|^\./||' |
		with_mode >"$list"
fi

problems=0
report() {
	echo "$1"
	problems=$((problems + 1))
}

while IFS= read -r line; do
	mode=${line%%"$tab"*}
	f=${line#*"$tab"}
	case $f in -*) f=./$f ;; esac # not an option to grep, head or cmp
	case $mode in 120000 | 160000) continue ;; esac # symlink, submodule
	[ -f "$f" ] || continue                         # deleted in the work tree

	size=$(wc -c <"$f" | tr -d ' ')
	if [ "$size" -gt "$max" ]; then
		report "$f: $((size / 1024)) KiB, over the ${limit} KiB limit; use Git LFS or keep it out of the repository"
		continue # large files are usually binary: skip the text checks
	fi
	# A file with NUL bytes is binary; the text checks would be noise.
	if ! tr -d '\000' <"$f" | cmp -s - "$f"; then
		continue
	fi

	for n in $(grep -nE '^(<{7}|>{7})( |$)' "$f" | cut -d: -f1); do
		report "$f:$n: merge conflict marker; resolve the conflict and delete the marker lines"
	done

	first=$(head -n 1 "$f" | cut -c1-2)
	case $first in
	'#!') script=1 ;;
	*) case $f in *.sh) script=1 ;; *) script=0 ;; esac ;;
	esac
	if [ "$script" = 1 ] && grep -q "$cr" "$f"; then
		report "$f: CRLF line endings in a script break its shebang; convert it to LF (dos2unix '$f')"
	fi
	if [ "$first" = '#!' ] && [ "$mode" != 100755 ]; then
		report "$f: has a shebang but no exec bit; run: chmod +x '$f' (git update-index --chmod=+x '$f')"
	fi
done <"$list"

dups=$(cut -f2- "$list" | tr '[:upper:]' '[:lower:]' | sort | uniq -d)
if [ -n "$dups" ]; then
	while IFS= read -r d; do
		report "$d: several paths differ only in case; rename all but one"
	done <<DUPS
$dups
DUPS
fi

if [ "$problems" -gt 0 ]; then
	echo "check.sh: $problems problem(s) found" >&2
	exit 1
fi
echo "check.sh: no problems found" >&2
exit 0
