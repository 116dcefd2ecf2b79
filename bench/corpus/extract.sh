#!/usr/bin/env bash
# extract.sh GITDIR DEST [COMMIT]: check out COMMIT's tree (default HEAD) of GITDIR into DEST
# (no .git), leaving out the blobs the snapshot lacks (the fetch tool keeps no file of 4 MiB
# or more)
set -euo pipefail
export GIT_DIR=$1 GIT_INDEX_FILE=$(mktemp)
trap 'rm -f "$GIT_INDEX_FILE"' EXIT
dest=$(mkdir -p "$2" && cd "$2" && pwd)
git read-tree "${3:-HEAD}"
git ls-files -s | awk '{print $2}' | git cat-file --batch-check | awk '$2=="missing"{print $1}' > "$GIT_INDEX_FILE.missing" || true
# grep exits 1 when no blob is missing, which pipefail would make fatal
# before the checkout: so the list is read only when it has a line
if [ -s "$GIT_INDEX_FILE.missing" ]; then
	git ls-files -s | grep -F -f "$GIT_INDEX_FILE.missing" | cut -f2- | while IFS= read -r p; do
		echo "$GIT_DIR: left out $p (not in the snapshot)" >&2
		git update-index --force-remove -- "$p"
	done
fi
rm -f "$GIT_INDEX_FILE.missing"
git --work-tree="$dest" checkout-index -a -f
