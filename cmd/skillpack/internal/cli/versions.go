package cli

import (
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/dist"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
)

// Versions are build's flags for versioned, immutable releases.
type Versions struct {
	Versioned bool
	Release   string   // --release-version, as given
	Previous  string   // --previous: a folder or an http(s) URL
	Auth      HTTPAuth // --previous-header, --previous-token-file
	// from says where Previous came from, for its errors: the flag or
	// skillpack.yaml (resolve).
	from string
}

const versionsHelp = `With --versioned, every skill that has a SemVer version (metadata.version,
or a top-level version under the claude and relaxed profiles) is also
published at paths that never change, .well-known/agent-skills/
<name>/<version>/ (its files and archives), listed in versions.json; with
--release-version X.Y.Z (a tag's "v" is dropped) the bundle is also release
X.Y.Z, whose snapshot of the index is v<X.Y.Z>/index.json. Versions and
releases published before are carried forward from --previous, or else
from DIST.

--previous DIR|URL compares the build with the bundle published last: a
skill whose content changed while its version did not, or whose version or
release went down, refuses the build (exit 1), naming the SKILL.md to bump;
a skill that is gone is a warning. A versioned previous bundle needs
--versioned. A previous bundle that cannot be read,
is not one skillpack built, or does not match its own checksums also
refuses it (exit 1). A URL on a private host is read with
--previous-token-file or --previous-header, sent to its origin only.

versioned: true and previous: DIR|URL in the build section of
skillpack.yaml set both for every build of the project; the flags win.`

// AddFlags adds the flags.
func (v *Versions) AddFlags(f *pflag.FlagSet) {
	f.BoolVar(&v.Versioned, "versioned", false, "also publish each skill's version at <name>/<version>/, and versions.json")
	f.StringVar(&v.Release, "release-version", "", "with --versioned: this bundle's release, `X.Y.Z` (a tag's leading v is dropped), snapshot at v<X.Y.Z>/index.json")
	f.StringVar(&v.Previous, "previous", "", "the bundle published last, a `folder or URL`: refuse changes to what it published, and carry its versions forward")
	v.Auth.AddFlags(f, "previous-", "the --previous URL's origin")
}

// resolve checks the flags and returns build's options: the release with
// a tag's "v" dropped. skillpack.yaml's build section gives versioned and
// previous where the command line (given) does not.
func (v *Versions) resolve(cfg *lint.Config, given func(string) bool) (versioned bool, release string, err error) {
	if cfg != nil && given != nil {
		v.Versioned = pick(given, "versioned", v.Versioned, cfg.Build.Versioned)
		v.Previous = pick(given, "previous", v.Previous, cfg.Build.Previous)
	}
	v.from = configSource(cfg, given == nil || given("previous"), "previous")
	release = v.Release
	if strings.HasPrefix(release, "v") || strings.HasPrefix(release, "V") {
		release = release[1:]
	}
	switch {
	case v.Release != "" && !v.Versioned:
		return false, "", usageErr("--release-version needs --versioned (or versioned: true in the build section of %s)", lint.ConfigFile)
	case v.Release != "":
		if err := layout.CheckRelease(release); err != nil {
			return false, "", usageErr("--release-version: %v", err)
		}
	}
	return v.Versioned, release, nil
}

// open opens --previous as dist reads a bundle, or returns nil without it.
func (v *Versions) open() (dist.Source, error) {
	if v.Previous == "" {
		if v.Auth.given() {
			return nil, usageErr("%s are for the --previous URL; give --previous, or leave them out", v.Auth.flags())
		}
		return nil, nil
	}
	o := dist.HTTPOptions{HeaderFlagPrefix: v.Auth.prefix}
	if !strings.Contains(v.Previous, "://") {
		if v.Auth.given() {
			return nil, usageErr("%s are for a URL; %s %s is a folder, read without HTTP, so leave them out", v.Auth.flags(), v.from, v.Previous)
		}
		switch info, err := os.Stat(v.Previous); {
		case err != nil:
			return nil, usageErr("%s %s: no such folder; give the folder or the http(s) URL of the bundle published last", v.from, v.Previous)
		case !info.IsDir():
			return nil, usageErr("%s %s: a file, not a folder; give the folder or the http(s) URL of the bundle published last", v.from, v.Previous)
		}
	}
	var err error
	if o.Header, err = v.Auth.Header(); err != nil {
		return nil, err
	}
	r, err := dist.OpenSource(v.Previous, o)
	if err != nil {
		return nil, usageErr("%s: %v", v.from, err)
	}
	return r, nil
}
