package cli

import (
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/layout"
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

// AddFlags adds the flags.
func (v *Versions) AddFlags(f *pflag.FlagSet) {
	f.BoolVar(&v.Versioned, "versioned", false, "also publish each skill's version at <name>/<version>/, and versions.json")
	f.StringVar(&v.Release, "release-version", "", "with --versioned: this bundle's release, `X.Y.Z` (a tag's leading v is dropped)")
	f.StringVar(&v.Previous, "previous", "", "the bundle published last, a `folder or URL`: refuse changes to what it published")
	v.Auth.AddFlags(f, "previous-", "the --previous URL's origin")
}

// resolve checks the flags and returns build's options: the release with
// a tag's "v" dropped. skillpack.yaml's build section gives versioned and
// previous where the command line (given) does not.
func (v *Versions) resolve(cfg *config.Config, given func(string) bool) (versioned bool, release string, err error) {
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
		return false, "", usageErr("--release-version needs --versioned (or versioned: true in the build section of %s)", config.File)
	case v.Release != "":
		if err := layout.CheckRelease(release); err != nil {
			return false, "", usageErr("--release-version: %v", err)
		}
	}
	return v.Versioned, release, nil
}

// previousAt is where a --previous flag (from names it) points: a folder,
// given as a path or as the file:// URL publish writes it at, or an
// http(s) URL; anything else is the user's mistake, said before any work.
func previousAt(from, p string) (string, error) {
	if t := targetOf(p); t != nil {
		if t.folder == nil {
			return "", usageErr("%s %s: give the folder or the http(s) URL of the bundle published last; a %s target is read by verify, not here: pull it into a folder first, or give the URL it is served at", from, p, t.scheme)
		}
		dir, err := t.folder(p)
		if err != nil {
			return "", usageErr("%s %v", from, err)
		}
		p = dir
	}
	if strings.Contains(p, "://") {
		return p, nil // http(s), or what bundle.OpenSource refuses with its own message
	}
	switch info, err := os.Stat(p); {
	case err != nil:
		return "", usageErr("%s %s: no such folder; give the folder or the http(s) URL of the bundle published last", from, p)
	case !info.IsDir():
		return "", usageErr("%s %s: a file, not a folder; give the folder or the http(s) URL of the bundle published last", from, p)
	}
	return p, nil
}

// open opens --previous as dist reads a bundle, or returns nil without it.
func (v *Versions) open() (bundle.Source, error) {
	if v.Previous == "" {
		if v.Auth.given() {
			return nil, usageErr("%s are for the --previous URL; give --previous, or leave them out", v.Auth.flags())
		}
		return nil, nil
	}
	o := bundle.HTTPOptions{HeaderFlagPrefix: v.Auth.prefix}
	loc, err := previousAt(v.from, v.Previous)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(loc, "://") && v.Auth.given() {
		return nil, usageErr("%s are for a URL; %s %s is a folder, read without HTTP, so leave them out", v.Auth.flags(), v.from, v.Previous)
	}
	v.Previous = loc
	if o.Header, err = v.Auth.Header(); err != nil {
		return nil, err
	}
	r, err := bundle.OpenSource(v.Previous, o)
	if err != nil {
		return nil, usageErr("%s: %v", v.from, err)
	}
	return r, nil
}
