package lint

import (
	"fmt"
	"path/filepath"

	"github.com/skillpack/skillpack/skill"
)

// Settings are what a project sets of lint: skillpack.yaml's profile,
// rules, ignore and allow sections and its baseline, which package config
// reads. The zero value is the defaults.
type Settings struct {
	Profile  *Profile            // nil: the default profile (clients)
	Severity map[string]Severity // rule ID → severity, over the profile's
	Ignore   *skill.Ignore       // paths relative to Dir()
	Allow    []*Allow            // suppressions by path and rule, each with its reason
	Baseline *Baseline           // known findings that do not fail a run; nil for none

	// File is the file the settings were read from ("" for none): the
	// findings about them name it. Digest is of its bytes, in the
	// verdict key, so that a kept verdict outlives no edit of it.
	File   string
	Digest [32]byte
}

// Dir is the folder the ignore and allow globs are relative to.
func (s *Settings) Dir() string {
	if s.File == "" {
		return "."
	}
	return filepath.Dir(s.File)
}

// key identifies everything in the settings that can change what lint
// reports, with the strict flag: the build reuses a skill's verdict only
// while it is unchanged.
func (s *Settings) key(strict bool) string {
	var base [32]byte
	if s.Baseline != nil {
		base = s.Baseline.sum
	}
	return fmt.Sprintf("%x/%s/%t/%x", s.Digest, s.Profile.Name, strict, base)
}

// Lowers reports whether the settings weigh r below its default severity
// (a rule off, or a profile's lower level).
func (s *Settings) Lowers(r *Rule) bool { return s.effective(r) < r.Severity }

// effective returns the severity of a rule under these settings: their
// own, else the profile's, else the rule's default.
func (s *Settings) effective(r *Rule) Severity {
	if sev, ok := s.Severity[r.ID]; ok {
		return sev
	}
	return s.Profile.level(r)
}
