package lint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/skill"
)

// A verdict is what the per-skill rules said of one skill. A caller that
// keeps verdicts between runs (the build, in its record) gives them back
// to CheckSkill, and the rules are not run again on a skill whose
// VerdictKey is the one the verdict was given under: the key covers
// everything the rules read, so the findings would be the same.

// VerdictKey is everything lint's per-skill rules read of a skill: this
// skillpack's rules and the config (with its profile, strictness and
// baseline), the folder and entry file names, and every collected file
// with its digest, exec bit and link status, the junk and the ignored.
// entries are the collected files with their digests, as package pack
// lists them. Where the skill sits is not in it: a kept verdict spells its
// paths relative to the skill (see EncodeVerdict), so that the key and the
// verdict are the same on every machine, as the build record must be.
func VerdictKey(s *skill.Skill, files *skill.Files, entries []pack.Member, opts Options) string {
	h := sha256.New()
	fmt.Fprintf(h, "skillpack-lint/2\n%s\n%s\n%s\n%s\n", fingerprint(), newRunner(opts).set.key(opts.Strict), s.Name(), s.File)
	h.Write(pack.Manifest(entries))
	for _, f := range files.Files {
		fmt.Fprintf(h, "link %t %s\n", f.Link, f.Path)
	}
	for _, d := range s.Inner { // whose files are theirs (settle)
		if rel, err := filepath.Rel(s.Dir, d); err == nil {
			fmt.Fprintf(h, "inner %s\n", filepath.ToSlash(rel))
		}
	}
	for _, p := range files.Junk {
		fmt.Fprintf(h, "junk %s\n", p)
	}
	for _, p := range files.Ignored {
		fmt.Fprintf(h, "ignored %s\n", p)
	}
	for _, p := range files.GitIgnored() { // file-git-ignored's, which a .gitignore changes
		fmt.Fprintf(h, "git-ignored %s\n", p)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// EncodeVerdict is the verdict CheckSkill returned for skill s
// as a caller keeps them, with paths relative to the skill's folder: nil
// when there are none, so that a clean skill costs its keeper nothing. ok
// is false when a finding is about a file outside the skill, which a
// verdict cannot carry to another place; the caller keeps no verdict then.
func EncodeVerdict(s *skill.Skill, fs []Finding, opts Options) (raw json.RawMessage, ok bool) {
	if len(fs) == 0 {
		return nil, true
	}
	dir := newRunner(opts).rel(s.Dir)
	kept := make([]Finding, len(fs))
	for i, f := range fs {
		switch rest, found := strings.CutPrefix(f.Path, dir); {
		case found && rest == "":
			f.Path = "."
		case found && rest[0] == '/':
			f.Path = rest[1:]
		default:
			return nil, false
		}
		kept[i] = f
	}
	data, _ := json.Marshal(kept) // a Finding always marshals
	return data, true
}

// DecodeVerdict reads what EncodeVerdict wrote for skill s, with paths
// relative to opts.Base again. A verdict that does not read is no verdict:
// the caller lints the skill again.
func DecodeVerdict(s *skill.Skill, raw json.RawMessage, opts Options) ([]Finding, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var kept []Finding
	if err := json.Unmarshal(raw, &kept); err != nil {
		return nil, err
	}
	dir := newRunner(opts).rel(s.Dir)
	for i, f := range kept {
		if Lookup(f.Rule) == nil {
			return nil, fmt.Errorf("unknown rule %q", f.Rule)
		}
		if !fs.ValidPath(f.Path) { // "." is the skill's folder itself
			return nil, fmt.Errorf("path %q is not inside the skill", f.Path)
		}
		kept[i].Path = path.Join(dir, f.Path)
	}
	return kept, nil
}
