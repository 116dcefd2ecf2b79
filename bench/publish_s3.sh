#!/usr/bin/env bash
# publish_s3.sh: `skillpack publish DIST s3://...` against `rclone sync` of
# the same folder, to one versitygw on 127.0.0.1, in one run: a fresh
# publish, the same bundle again (nothing to send), and after one skill
# changed; rclone fresh, again, and again with --checksum (ETags against
# MD5s from the listing, no HEADs). skillpack also sets every object's
# headers and checksum and keeps the safe order; rclone does neither, so
# the target is skillpack fresh <= 1.5 x rclone fresh (issue 15).
#
#   bench/publish_s3.sh              # 2,000 skills
#   SKILLS=10000 bench/publish_s3.sh
#
# Environment: SKILLS (default 2000) the size of the tree (bench/gen);
# JOBS (default 16) skillpack's --jobs and rclone's --transfers and
# --checkers. SKILLPACK names a binary to measure instead of building
# ./cmd/skillpack. KEEP=1 keeps the temporary folder (the tree, the
# bundle, versitygw's storage and every command's output).
set -Eeuo pipefail

SKILLS=${SKILLS:-2000}
JOBS=${JOBS:-16}

die() {
	echo "publish_s3.sh: $*" >&2
	exit 1
}
usage() {
	echo "publish_s3.sh: $*" >&2
	exit 2
}

(($# == 0)) || usage "takes no arguments, only environment variables (see the top of bench/publish_s3.sh)"
for v in SKILLS JOBS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || usage "$v must be a positive number, not ${!v}"
done
for tool in versitygw rclone curl; do
	command -v "$tool" >/dev/null || die "$tool is not installed (versitygw: go install github.com/versity/versitygw/cmd/versitygw@v1.8.0; rclone, curl: apt-get install rclone curl)"
done

repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
vgw=
cleanup() {
	if [[ -n $vgw ]]; then kill "$vgw" 2>/dev/null || true; fi
	if [[ ${KEEP:-} == 1 ]]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

skillpack=${SKILLPACK:-}
if [[ -z $skillpack ]]; then
	skillpack=$tmp/skillpack
	(cd "$repo" && go build -o "$skillpack" ./cmd/skillpack)
fi
(cd "$repo" && go run -tags bench ./bench/gen -n "$SKILLS" "$tmp/tree" >/dev/null)
"$skillpack" build "$tmp/tree" -o "$tmp/dist" -q
objects=$(find "$tmp/dist" -type f | wc -l)
size=$(du -sh "$tmp/dist" | cut -f1)

# versitygw stores buckets as folders: the two buckets are made by hand.
mkdir -p "$tmp/store/skillpack" "$tmp/store/rclone"
port=$((20000 + RANDOM % 20000))
versitygw --access bench --secret benchsecret --port "127.0.0.1:$port" --quiet posix "$tmp/store" >"$tmp/versitygw.log" 2>&1 &
vgw=$!
for _ in $(seq 100); do
	curl -s -o /dev/null "http://127.0.0.1:$port/" && break
	sleep 0.1
done
endpoint=http://127.0.0.1:$port

# The same credentials for both; AWS_CA_BUNDLE (set on some machines)
# makes rclone refuse an http endpoint, and concerns neither here.
unset AWS_CA_BUNDLE AWS_PROFILE AWS_SESSION_TOKEN
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=benchsecret AWS_REGION=us-east-1
cat >"$tmp/rclone.conf" <<EOF
[v]
type = s3
provider = Other
access_key_id = bench
secret_access_key = benchsecret
endpoint = $endpoint
region = us-east-1
EOF

# seconds runs a command and prints its wall time in seconds; its output
# goes to a file named for the step.
seconds() {
	local name=$1
	shift
	local start end
	start=$(date +%s.%N)
	"$@" >"$tmp/$name.out" 2>&1 || die "$name failed: $(tail -3 "$tmp/$name.out")"
	end=$(date +%s.%N)
	echo "$end - $start" | bc | xargs printf '%.1f'
}

publish() { "$skillpack" publish "$tmp/dist" s3://skillpack/site --endpoint "$endpoint" --jobs "$JOBS"; }
rclone_sync() { rclone --config "$tmp/rclone.conf" sync "$tmp/dist" v:rclone/site --transfers "$JOBS" --checkers "$JOBS" "$@"; }

sp_fresh=$(seconds skillpack-fresh publish)
sp_again=$(seconds skillpack-again publish)
echo "one more line" >>"$tmp/tree/skill-00042/SKILL.md"
"$skillpack" build "$tmp/tree" -o "$tmp/dist" -q
sp_change=$(seconds skillpack-change publish)
sent=$(grep -c '^uploaded ' "$tmp/skillpack-change.out" || true)
rc_fresh=$(seconds rclone-fresh rclone_sync)
rc_again=$(seconds rclone-again rclone_sync)
rc_sum=$(seconds rclone-checksum rclone_sync --checksum)

echo "publish to versitygw: $SKILLS skills, $objects objects, $size; --jobs $JOBS"
echo
echo "| step | skillpack publish | rclone sync |"
echo "|---|---|---|"
echo "| fresh | $sp_fresh s | $rc_fresh s |"
echo "| again, nothing to send | $sp_again s | $rc_again s ($rc_sum s with --checksum) |"
echo "| one skill changed | $sp_change s, $sent objects sent | |"
echo
ratio=$(echo "$sp_fresh / $rc_fresh" | bc -l | xargs printf '%.2f')
echo "fresh: skillpack/rclone = $ratio (target <= 1.5)"
