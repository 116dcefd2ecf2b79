#!/usr/bin/env bash
# extract.sh GITDIR DEST: check out the HEAD tree of GITDIR into DEST (no .git), leaving out
# the blobs the snapshot lacks (the fetch tool keeps no file of 4 MiB or more)
set -euo pipefail
export GIT_DIR=$1 GIT_INDEX_FILE=$(mktemp)
trap 'rm -f "$GIT_INDEX_FILE"' EXIT
dest=$(mkdir -p "$2" && cd "$2" && pwd)
git read-tree HEAD
git ls-files -s | awk '{print $2}' | git cat-file --batch-check | awk '$2=="missing"{print $1}' > "$GIT_INDEX_FILE.missing" || true
git ls-files -s | grep -F -f "$GIT_INDEX_FILE.missing" | cut -f2- | while IFS= read -r p; do
	echo "$GIT_DIR: left out $p (not in the snapshot)" >&2
	git update-index --force-remove -- "$p"
done
rm -f "$GIT_INDEX_FILE.missing"
git --work-tree="$dest" checkout-index -a -f
