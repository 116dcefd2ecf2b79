#!/usr/bin/env bash
# scripts/lines.sh [REV]: the module's non-test Go lines at REV (default:
# the working tree's tracked files), per package folder and in all,
# leaving out bench/ (the benchmark programs) and testdata, and last the
# total split into comment, blank and other (code) lines. Issue 32
# measures "one way per job" with it, before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-}
if [ -n "$rev" ]; then list=$(git ls-tree -r --name-only "$rev"); else list=$(git ls-files); fi
files=$(printf '%s\n' "$list" | grep '\.go$' | grep -v '_test\.go$' | grep -v '^bench/' | grep -v '/testdata/')
show() { if [ -n "$rev" ]; then git show "$rev:$1"; else cat "$1"; fi; }
for f in $files; do
  n=$(show "$f" | wc -l)
  printf '%s %s\n' "$n" "$(dirname "$f")"
done | awk '{ n[$2] += $1; t += $1 } END { for (d in n) printf "%6d %s\n", n[d], d; printf "%6d total\n", t }' | sort -n
for f in $files; do show "$f"; done |
  awk '/^[ \t]*\/\//{c++; next} /^[ \t]*$/{b++; next} {k++} END{printf "%6d comment, %d blank, %d code\n", c, b, k}'
