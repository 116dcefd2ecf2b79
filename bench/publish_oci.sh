#!/usr/bin/env bash
# publish_oci.sh: `skillpack publish DIST oci://...` against what a user
# would script instead, an `oras push` per skill in a shell loop, to one
# Debian docker-registry (distribution 2.8) on 127.0.0.1, in one run: a
# fresh publish, the same bundle again (nothing to send), and after one
# skill changed; then the oras loop, pushing what a skill's artifact holds
# (its config, .tar.gz and SKILL.md, with the skill's artifact type, tagged
# with its name) to a second registry, started the same way with storage
# of its own: in the first, every blob would already be stored by
# skillpack's runs, which spares a registry part of an upload's work.
# skillpack also pushes the collection index, the documents and the
# release tag, in the safe order; the target is skillpack fresh at least
# 3 times faster than the oras loop (issue 15).
#
#   bench/publish_oci.sh                             # 10,000 skills
#   SKILLS=1000 bench/publish_oci.sh
#   SKILLS=10000 ORAS_SAMPLE=1000 bench/publish_oci.sh
#
# Environment: SKILLS (default 10000) the size of the tree (bench/gen);
# JOBS skillpack's --jobs (default: skillpack's own); ORAS_SAMPLE (default
# SKILLS) how many skills the oras loop pushes: fewer times the loop over
# the first ORAS_SAMPLE skills and scales it to SKILLS, and the table says
# so. SKILLPACK names a binary to measure instead of building
# ./cmd/skillpack. KEEP=1 keeps the temporary folder (the tree, the
# bundle, the registry's storage and every command's output).
# REGISTRY_DIR puts the registry's storage in a folder of its own under
# that one instead, such as /dev/shm: the registry syncs every file it
# writes (a few a blob), which a disk makes the slowest part of a push.
#
# Each step's CPU time is given for the client (skillpack, or every oras
# process of the loop) and for the registry (from /proc), to show where
# the time goes on a machine whose cores both share.
set -Eeuo pipefail

SKILLS=${SKILLS:-10000}
ORAS_SAMPLE=${ORAS_SAMPLE:-$SKILLS}
JOBS=${JOBS:-}

die() {
	echo "publish_oci.sh: $*" >&2
	exit 1
}
usage() {
	echo "publish_oci.sh: $*" >&2
	exit 2
}

(($# == 0)) || usage "takes no arguments, only environment variables (see the top of bench/publish_oci.sh)"
for v in SKILLS ORAS_SAMPLE ${JOBS:+JOBS}; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || usage "$v must be a positive number, not ${!v}"
done
((ORAS_SAMPLE <= SKILLS)) || usage "ORAS_SAMPLE ($ORAS_SAMPLE) is more than SKILLS ($SKILLS)"
for tool in docker-registry oras curl bc jq; do
	command -v "$tool" >/dev/null || die "$tool is not installed (docker-registry, curl, bc, jq: apt-get install docker-registry curl bc jq; oras: go install oras.land/oras/cmd/oras@v1.3.6)"
done
[[ -r /proc/self/stat ]] || die "/proc is not mounted: the registry's CPU time is read from /proc/PID/stat (Linux only)"

repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
storage=$tmp/storage
if [[ -n ${REGISTRY_DIR:-} ]]; then
	storage=$(mktemp -d "$REGISTRY_DIR/publish_oci.XXXXXX") || die "cannot make a folder in REGISTRY_DIR $REGISTRY_DIR"
fi
regs=()
cleanup() {
	# A second Ctrl-C (or timeout's signal to the whole group) must not
	# cut the cleanup short: ignored here, and in the commands it runs.
	trap '' INT TERM
	local r
	for r in "${regs[@]}"; do
		kill "$r" 2>/dev/null || true
		wait "$r" 2>/dev/null || true
	done
	if [[ ${KEEP:-} == 1 ]]; then
		echo "kept $tmp $storage" >&2
	else
		rm -rf "$tmp" "$storage"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

skillpack=${SKILLPACK:-}
if [[ -z $skillpack ]]; then
	skillpack=$tmp/skillpack
	(cd "$repo" && go build -o "$skillpack" ./cmd/skillpack)
fi
(cd "$repo" && go run -tags bench ./bench/gen -n "$SKILLS" "$tmp/tree" >/dev/null)
"$skillpack" build "$tmp/tree" -o "$tmp/dist" -q
size=$(du -sh "$tmp/dist" | cut -f1)

# start_registry NAME starts a registry as publish/oci's tests do
# (internal/testtool: filesystem storage, deletes on, the access log off)
# with its storage in $storage/NAME, and sets reg (its PID) and host.
start_registry() {
	local name=$1 port
	port=$((20000 + RANDOM % 20000))
	host=127.0.0.1:$port
	mkdir -p "$storage/$name"
	cat >"$tmp/$name.yml" <<EOF
version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $storage/$name
  delete:
    enabled: true
http:
  addr: $host
EOF
	docker-registry serve "$tmp/$name.yml" >"$tmp/$name.log" 2>&1 &
	reg=$!
	regs+=("$reg")
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://$host/v2/" && return
		kill -0 "$reg" 2>/dev/null || die "docker-registry exited: $(tail -3 "$tmp/$name.log")"
		sleep 0.1
	done
	die "docker-registry did not answer on $host"
}
start_registry skillpack

tick=$(getconf CLK_TCK)
# regcpu is the registry's CPU time so far, in clock ticks (user + system).
regcpu() { awk '{print $14 + $15}' "/proc/$reg/stat"; }

# measure NAME CMD... runs a command, its output to a file named for the
# step, and sets wall, cpu (the command's, children included) and rcpu
# (the registry's), in seconds.
measure() {
	local name=$1
	shift
	local r0 r1 times
	r0=$(regcpu)
	TIMEFORMAT='%R %U %S'
	{ time "$@" >"$tmp/$name.out" 2>&1; } 2>"$tmp/$name.time" || die "$name failed: $(tail -3 "$tmp/$name.out")"
	r1=$(regcpu)
	read -r wall user sys <"$tmp/$name.time"
	cpu=$(echo "$user + $sys" | bc)
	rcpu=$(echo "scale=2; ($r1 - $r0) / $tick" | bc)
}
fmt() { printf '%.1f' "$1"; }

publish() { "$skillpack" publish "$tmp/dist" "oci://$host/bench/skillpack:v1" ${JOBS:+--jobs "$JOBS"}; }

measure skillpack-fresh publish
sp_fresh=$wall sp_fresh_cpu=$cpu sp_fresh_rcpu=$rcpu
measure skillpack-again publish
sp_again=$wall sp_again_cpu=$cpu sp_again_rcpu=$rcpu
echo "one more line" >>"$tmp/tree/$(printf 'skill-%05d' $((SKILLS / 2)))/SKILL.md"
"$skillpack" build "$tmp/tree" -o "$tmp/dist" -q
measure skillpack-change publish
sp_change=$wall sp_change_cpu=$cpu sp_change_rcpu=$rcpu
sent=$(grep -c '^uploaded ' "$tmp/skillpack-change.out" || true)

# The oras loop: the first ORAS_SAMPLE skills of the bundle's index, each
# pushed as the artifact skillpack makes of it (its config, the archive
# and SKILL.md, with the skill's artifact type), tagged with its name. The
# configs are written before the clock starts, from the index.
mkdir -p "$tmp/oras-config"
jq -r '.skills[] | [.name, .url, ({name, description} | tojson)] | @tsv' \
	"$tmp/dist/.well-known/agent-skills/index.json" | head -n "$ORAS_SAMPLE" >"$tmp/oras-sample" || true
while IFS=$'\t' read -r name _ config; do
	printf '%s' "$config" >"$tmp/oras-config/$name.json"
done <"$tmp/oras-sample"
(($(wc -l <"$tmp/oras-sample") == ORAS_SAMPLE)) || die "the bundle's index lists fewer than $ORAS_SAMPLE skills"
start_registry oras
cd "$tmp/dist/.well-known/agent-skills"
oras_loop() {
	local name archive config
	while IFS=$'\t' read -r name archive config; do
		oras push --plain-http --no-tty --artifact-type application/vnd.agentskills.skill.v1 \
			--config "$tmp/oras-config/$name.json:application/vnd.agentskills.skill.config.v1+json" \
			"$host/bench/oras:$name" \
			"$archive:application/vnd.agentskills.skill.content.v1.tar+gzip" \
			"$name/SKILL.md:text/markdown" >/dev/null
	done <"$tmp/oras-sample"
}
measure oras-fresh oras_loop
cd "$repo"
scale=$(echo "scale=6; $SKILLS / $ORAS_SAMPLE" | bc)
or_fresh=$(echo "$wall * $scale" | bc) or_fresh_cpu=$(echo "$cpu * $scale" | bc) or_fresh_rcpu=$(echo "$rcpu * $scale" | bc)
scaled=
if ((ORAS_SAMPLE < SKILLS)); then
	scaled=" (timed over $ORAS_SAMPLE skills, scaled to $SKILLS)"
fi

echo "publish to docker-registry $(docker-registry --version 2>/dev/null | awk '{print $3}') (storage on $(df --output=fstype "$storage" | tail -1)): $SKILLS skills, $size; skillpack --jobs ${JOBS:-default}; $(nproc) cores"
echo
echo "| step | wall | client CPU | registry CPU |"
echo "|---|---|---|---|"
echo "| skillpack fresh | $(fmt "$sp_fresh") s | $(fmt "$sp_fresh_cpu") s | $(fmt "$sp_fresh_rcpu") s |"
echo "| skillpack again, nothing to send | $(fmt "$sp_again") s | $(fmt "$sp_again_cpu") s | $(fmt "$sp_again_rcpu") s |"
echo "| skillpack, one skill changed ($sent objects sent) | $(fmt "$sp_change") s | $(fmt "$sp_change_cpu") s | $(fmt "$sp_change_rcpu") s |"
echo "| oras push loop, fresh$scaled | $(fmt "$or_fresh") s | $(fmt "$or_fresh_cpu") s | $(fmt "$or_fresh_rcpu") s |"
echo
ratio=$(echo "$or_fresh / $sp_fresh" | bc -l | xargs printf '%.1f')
echo "fresh: oras loop / skillpack = $ratio (target >= 3)"
