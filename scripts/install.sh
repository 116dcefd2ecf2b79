#!/bin/sh
# Installs skillpack (and skillpack-sign beside it) from a GitHub release:
# the archive for this OS and architecture, checked against the release's
# checksums.txt, whose keyless signature is checked first when cosign is on
# PATH. With SKILLPACK_SOURCE set it builds from that checkout instead when
# VERSION has no release (a branch, a commit, a tag not yet released),
# stamping the version as a release build does. The GitHub Action
# (action.yml) runs it; anyone can:
#
#   sh scripts/install.sh v0.1.0 ~/.local/bin
#
# Usage: install.sh VERSION [BINDIR]    (BINDIR: default ./bin)
#        install.sh --resolve VERSION    prints the release VERSION names
#
# VERSION is a release tag (v0.1.0, v0.2.0-rc.1); a moving tag (v0, v0.2)
# stands for the newest release, when that is one of its own (v0.2.3), as
# `uses: skillpack/skillpack@v0` expects; for a source build, any git ref;
# "" builds from source and lets go build stamp the commit. --resolve only
# prints the release a moving tag stands for (any other VERSION as given),
# for a cache key.
#
# Environment:
#   SKILLPACK_REPO      owner/name of the repository (default skillpack/skillpack)
#   SKILLPACK_RELEASES  where the releases are (default
#                       https://github.com/$SKILLPACK_REPO/releases/download);
#                       the archive is fetched from $SKILLPACK_RELEASES/VERSION/
#   SKILLPACK_LATEST    where the newest release is (default
#                       https://github.com/$SKILLPACK_REPO/releases/latest/download)
#   SKILLPACK_SOURCE    a checkout to build from when VERSION has no release
#   SKILLPACK_SIGN      "false": build only skillpack from source (the
#                       Sigstore helper takes minutes to compile)
#   SKILLPACK_OS, SKILLPACK_ARCH  the archive's os and arch as GoReleaser names
#                       them (linux, darwin, windows; amd64, arm64, 386, armv7);
#                       default from uname
#   COSIGN              the cosign program (default cosign)
#
# Exit codes: 0 installed; 1 a checksum or signature did not match (nothing
# is installed); 2 a usage mistake; 3 a download or build failed; 4 VERSION
# has no release and SKILLPACK_SOURCE is not set.
set -eu

die() { # die CODE MESSAGE
  echo "install.sh: $2" >&2
  exit "$1"
}

resolve=
if [ "${1:-}" = --resolve ]; then
  resolve=1
  shift
fi
[ $# -ge 1 ] && [ $# -le 2 ] || die 2 "usage: install.sh VERSION [BINDIR] (VERSION: a release tag such as v0.1.0)"
version=$1
bindir=${2:-bin}
repo=${SKILLPACK_REPO:-skillpack/skillpack}
releases=${SKILLPACK_RELEASES:-https://github.com/$repo/releases/download}
releases=${releases%/}
latest=${SKILLPACK_LATEST:-https://github.com/$repo/releases/latest/download}
cosign=${COSIGN:-cosign}

# The name GoReleaser gives the archive (.goreleaser.yaml, archives):
# skillpack_<version without v>_<os>_<arch>[v<arm>].tar.gz, .zip on Windows.
os=${SKILLPACK_OS:-}
if [ -z "$os" ]; then
  case $(uname -s) in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
    *) die 3 "no release archive for this system ($(uname -s)); set SKILLPACK_SOURCE to build from source" ;;
  esac
fi
arch=${SKILLPACK_ARCH:-}
if [ -z "$arch" ]; then
  case $(uname -m) in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    i386 | i486 | i586 | i686) arch=386 ;;
    armv7*) arch=armv7 ;;
    *) die 3 "no release archive for this architecture ($(uname -m)); set SKILLPACK_SOURCE to build from source" ;;
  esac
fi
ext=tar.gz exe=
if [ "$os" = windows ]; then ext=zip exe=.exe; fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sha256() { # the hex SHA-256 of a file, with whichever tool this system has
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 -r "$1" | cut -d' ' -f1
  else
    die 3 "no sha256sum, shasum or openssl to check the download with"
  fi
}

fetch() { # fetch URL FILE: prints the HTTP status; fails on no answer
  curl -sSL --retry 3 --proto '=https,http' -o "$2" -w '%{http_code}' "$1" ||
    die 3 "could not download $1"
}

# install_from DIR [VERSION]: checks DIR's skillpack runs (and reports
# VERSION when given), then moves it and skillpack-sign into BINDIR, each
# replaced whole.
install_from() {
  got=$("$1/skillpack$exe" version | head -n 1) || die 3 "skillpack$exe from $archive does not run here"
  if [ -n "${2:-}" ] && [ "$got" != "skillpack $2" ]; then
    die 1 "skillpack$exe from $archive reports \"$got\", not skillpack $2: not installed"
  fi
  mkdir -p "$bindir" || die 3 "cannot create $bindir"
  for b in skillpack skillpack-sign; do
    [ -f "$1/$b$exe" ] || continue
    cp "$1/$b$exe" "$bindir/.$b$exe.tmp" && chmod 755 "$bindir/.$b$exe.tmp" &&
      mv -f "$bindir/.$b$exe.tmp" "$bindir/$b$exe" || die 3 "cannot write $bindir/$b$exe"
  done
  echo "installed $got in $bindir"
}

# from_source: go build in SKILLPACK_SOURCE, stamped as a release build is
# (the checkout the Action gets has no .git, so go build could only say
# "(devel)"): the tag itself; a commit as Go's pseudo-version shape with an
# unknown time; a branch as a pre-release of v0.0.0 named for it.
from_source() {
  src=$SKILLPACK_SOURCE
  case $version in
    "") stamp= ;;
    v[0-9]*.[0-9]*.[0-9]*) stamp=$version ;;
    *) if printf '%s\n' "$version" | grep -Eq '^[0-9a-f]{40}$'; then
      stamp=v0.0.0-00000000000000-$(printf '%s' "$version" | cut -c1-12)
    else
      stamp=v0.0.0-$(printf '%s' "$version" | tr -c '0-9A-Za-z-' '-')
    fi ;;
  esac
  command -v go >/dev/null 2>&1 || die 3 "building from source needs Go (https://go.dev/dl/)"
  echo "building skillpack ${stamp:-(unstamped)} from $src" >&2
  mkdir "$tmp/out"
  archive="a build of $src"
  (cd "$src" && CGO_ENABLED=0 GOEXPERIMENT=jsonv2 go build -trimpath -o "$tmp/out/skillpack$exe" \
    -ldflags "-X github.com/skillpack/skillpack/internal/version.stamped=$stamp" ./cmd/skillpack) ||
    die 3 "go build in $src failed"
  if [ "${SKILLPACK_SIGN:-true}" != false ]; then
    (cd "$src/cmd/skillpack-sign" && CGO_ENABLED=0 go build -trimpath -o "$tmp/out/skillpack-sign$exe" \
      -ldflags "-X main.stamped=$stamp" .) || die 3 "go build in $src/cmd/skillpack-sign failed"
  fi
  install_from "$tmp/out" "$stamp"
}

no_release() { # no_release REASON
  if [ -n "${SKILLPACK_SOURCE:-}" ]; then
    echo "$1: building from source" >&2
    from_source
    exit 0
  fi
  die 4 "$1 (set SKILLPACK_SOURCE to a checkout to build from source)"
}

# A moving tag names no release of its own: the newest release (GitHub's
# latest: not a pre-release) stands for it when it is one of its versions.
# Its checksums.txt names it, in every archive's name.
if printf '%s\n' "$version" | grep -Eq '^v[0-9]+(\.[0-9]+)?$'; then
  code=$(fetch "$latest/checksums.txt" "$tmp/latest.txt")
  case $code in
    200) ;;
    404) code= ;;
    *) die 3 "$latest/checksums.txt: HTTP $code" ;;
  esac
  newest=
  if [ -n "$code" ]; then
    newest=v$(sed -n 's/^[0-9a-f]*  *\*\{0,1\}skillpack_\([0-9][^_]*\)_.*/\1/p' "$tmp/latest.txt" | head -n 1)
  fi
  case $newest in
    "$version".*) echo "$version: the newest release is $newest" >&2; version=$newest ;;
    *) [ -n "$resolve" ] || no_release "no release of $version${newest:+ (the newest release is $newest)}" ;;
  esac
fi
if [ -n "$resolve" ]; then
  printf '%s\n' "$version"
  exit 0
fi

# A release is looked for only under a version tag: a branch or a commit
# has none, and asking would only cost a round trip.
if ! printf '%s\n' "$version" | grep -Eq '^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'; then
  no_release "${version:-no version} is not a release tag"
fi

archive=skillpack_${version#v}_${os}_$arch.$ext
base=$releases/$version
code=$(fetch "$base/checksums.txt" "$tmp/checksums.txt")
case $code in
  200) ;;
  404) no_release "no release $version at $base" ;;
  *) die 3 "$base/checksums.txt: HTTP $code" ;;
esac

# checksums.txt names every archive; its keyless signature ties it to this
# repository's release workflow run for exactly this tag.
if command -v "$cosign" >/dev/null 2>&1; then
  code=$(fetch "$base/checksums.txt.sigstore.json" "$tmp/checksums.txt.sigstore.json")
  [ "$code" = 200 ] || die 1 "$base/checksums.txt.sigstore.json: HTTP $code: the release's checksums are not signed"
  "$cosign" verify-blob "$tmp/checksums.txt" --bundle "$tmp/checksums.txt.sigstore.json" \
    --certificate-identity "https://github.com/$repo/.github/workflows/release.yml@refs/tags/$version" \
    --certificate-oidc-issuer https://token.actions.githubusercontent.com >&2 ||
    die 1 "checksums.txt of $version: the signature does not verify (see SECURITY.md, Verifying a release)"
  echo "checksums.txt: signature verified with cosign" >&2
else
  echo "checksums.txt: cosign is not on PATH, so its signature is not checked; the archive is checked against its SHA-256 alone" >&2
fi

want=$(awk -v n="$archive" '$2 == n || $2 == "*" n { print $1 }' "$tmp/checksums.txt")
[ -n "$want" ] || die 3 "$base/checksums.txt names no $archive: no release archive for $os/$arch"
code=$(fetch "$base/$archive" "$tmp/$archive")
[ "$code" = 200 ] || die 3 "$base/$archive: HTTP $code"
got=$(sha256 "$tmp/$archive")
[ "$got" = "$want" ] || die 1 "$archive: SHA-256 $got, but checksums.txt says $want: not installed"
echo "$archive: SHA-256 matches checksums.txt" >&2

mkdir "$tmp/x"
if [ "$ext" = zip ]; then
  if command -v unzip >/dev/null 2>&1; then unzip -q "$tmp/$archive" -d "$tmp/x"; else tar -xf "$tmp/$archive" -C "$tmp/x"; fi
else
  tar -xzf "$tmp/$archive" -C "$tmp/x"
fi || die 3 "cannot unpack $archive"
[ -f "$tmp/x/skillpack$exe" ] || die 3 "$archive holds no skillpack$exe"
install_from "$tmp/x" "$version"
