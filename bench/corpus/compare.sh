#!/usr/bin/env bash
# compare.sh BEFORE.tsv AFTER.tsv: the Markdown table of two run.sh passes over one corpus,
# a row per repository: skills; errors/warnings/infos, the default build, build --skip-invalid
# with the skills it published and verify, and the exit codes seen, each as before → after;
# and why the default build was refused after.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: compare.sh BEFORE.tsv AFTER.tsv" >&2; exit 2; }
awk -F'\t' '
function v(c) { return c == "" ? "" : c == -1 ? "-" : c == 0 ? "ok" : c == 1 ? "refused" : c == 124 ? "timeout" : "exit " c }
function arrow(a, b) { return a == b ? a : a " → " b }
FNR == 1 { next }
NR == FNR { b[$1] = $0; next }
$1 == "all" { all = $0; next }
{
	split(b[$1], o, "\t")
	if (!header++) {
		print "| repository | skills | errors | warnings | infos | build | --skip-invalid: build, published, verify | exits | build refused after |"
		print "|---|---:|---:|---:|---:|---|---|---|---|"
	}
	why = $13; gsub(/\|/, "\\|", why)
	printf "| %s | %s | %s | %s | %s | %s | %s, %s, %s | %s | %s |\n", $1, arrow(o[2], $2), arrow(o[4], $4), arrow(o[5], $5), arrow(o[6], $6),
		arrow(v(o[8]), v($8)), arrow(v(o[9]), v($9)), arrow(o[10], $10), arrow(v(o[11]), v($11)), arrow(o[12], $12), why
	n++; bb += o[8] == 0; ab += $8 == 0; bv += o[11] == 0; av += $11 == 0
	b3 += o[12] ~ /(^|,)([3-9]|1[0-9][0-9])/; a3 += $12 ~ /(^|,)([3-9]|1[0-9][0-9])/
}
END {
	split(b["all"], o, "\t"); split(all, t, "\t")
	printf "| **%d repositories** | %s | %s | %s | %s | %s build | %s verify, %s published | %s with exit ≥ 3 | |\n", n, arrow(o[2], t[2]),
		arrow(o[4], t[4]), arrow(o[5], t[5]), arrow(o[6], t[6]), arrow(bb, ab), arrow(bv, av), arrow(o[10], t[10]), arrow(b3, a3)
}' "$1" "$2"
