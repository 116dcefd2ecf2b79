package cli

import (
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/verify"
)

// Versions are build's flags for versioned, immutable releases.
type Versions struct {
	Versioned bool
	Release   string // --release-version, as given
	Previous  string // --previous: a folder or an http(s) URL
}

const versionsHelp = `With --versioned, every skill that has a SemVer version (metadata.version)
is also published at paths that never change, .well-known/agent-skills/
<name>/<version>/ (its files and archives), listed in versions.json; with
--release-version X.Y.Z (a tag's "v" is dropped) the bundle is also release
X.Y.Z, whose snapshot of the index is v<X.Y.Z>/index.json. Versions and
releases published before are carried forward from --previous, or else
from DIST.

--previous DIR|URL compares the build with the bundle published last: a
skill whose content changed while its version did not, or whose version or
release went down, refuses the build (exit 1), naming the SKILL.md to bump;
a skill that is gone is a warning. A previous bundle that cannot be read,
is not one skillpack built, or does not match its own checksums also
refuses it (exit 1).`

// AddFlags adds the flags.
func (v *Versions) AddFlags(f *pflag.FlagSet) {
	f.BoolVar(&v.Versioned, "versioned", false, "also publish each skill's version at <name>/<version>/, and versions.json")
	f.StringVar(&v.Release, "release-version", "", "with --versioned: this bundle's release, `X.Y.Z` (a tag's leading v is dropped), snapshot at v<X.Y.Z>/index.json")
	f.StringVar(&v.Previous, "previous", "", "the bundle published last, a `folder or URL`: refuse changes to what it published, and carry its versions forward")
}

// resolve checks the flags and returns build's options: the release with
// a tag's "v" dropped.
func (v *Versions) resolve() (versioned bool, release string, err error) {
	release = v.Release
	if strings.HasPrefix(release, "v") || strings.HasPrefix(release, "V") {
		release = release[1:]
	}
	switch {
	case v.Release != "" && !v.Versioned:
		return false, "", usageErr("--release-version needs --versioned")
	case v.Release != "":
		if err := layout.CheckRelease(release); err != nil {
			return false, "", usageErr("--release-version: %v", err)
		}
	}
	return v.Versioned, release, nil
}

// open opens --previous with verify's reader, or returns nil without it.
func (v *Versions) open() (*verify.Reader, error) {
	if v.Previous == "" {
		return nil, nil
	}
	if !strings.Contains(v.Previous, "://") {
		if info, err := os.Stat(v.Previous); err != nil || !info.IsDir() {
			return nil, usageErr("--previous %s: no such folder; give the folder or the http(s) URL of the bundle published last", v.Previous)
		}
	}
	r, err := verify.NewReader(v.Previous, verify.Options{})
	if err != nil {
		return nil, usageErr("--previous: %v", err)
	}
	return r, nil
}
