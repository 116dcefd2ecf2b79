#!/usr/bin/env bash
# run.sh SKILLPACK_BINARY CORPUS_DIR OUT.tsv: run skillpack over every repository folder in
# CORPUS_DIR, one at a time (lint --format json, build, build --skip-invalid then verify), and
# write one row per repository to OUT.tsv, the Markdown tables (per repository, per rule, and
# the error findings by rule with an example) to OUT.md, and each exit 3 or timeout with the
# last lines of its stderr to OUT.stderr (and the terminal). CORPUS_DIR is made from
# repos.txt with extract.sh (see README.md here).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: run.sh SKILLPACK_BINARY CORPUS_DIR OUT.tsv" >&2; exit 2; }
bin=$(realpath "$1") corpus=$(realpath "$2") out=$(realpath "$3")
cd "$(dirname "$0")/../.."
go run -tags bench ./bench/corpus -skillpack "$bin" -tsv "$out" -rules "$corpus" >"${out%.tsv}.md" \
	2> >(tee "${out%.tsv}.stderr" >&2)
