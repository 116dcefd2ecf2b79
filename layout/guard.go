package layout

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/semver"
)

// The immutability guard: what comes after a published bundle is compared
// with it. A published version is immutable, as registries that pin skills
// by version require: a skill whose content changed while its version did
// not, or whose version went down, is an error; one that is gone is
// reported. Build (--previous, --versioned) and verify (--previous) share
// these functions, so that the rule has one definition.

// Published is what a bundle published, as its documents say: the v0.2
// index, and versions.json for a bundle built with --versioned.
type Published struct {
	Index    *IndexV2
	Versions *IndexVersions    // nil: built without --versioned
	Sums     map[string]Digest // checksums.txt, by dist path, which vouches for the documents
}

// Pin is a skill at a version, as a bundle publishes it or a build is
// about to: the version is "" for a skill that has none.
type Pin struct {
	Name, Version string
	ContentDigest Digest
	Digest        Digest // what the v0.2 index gives (Skill.IndexDigest); "" when not known
	// Source is the SKILL.md that sets the version, for the fix a message
	// gives, "" when not known (a bundle read back); Key is the key there
	// (VersionOf), "" for metadata.version.
	Source, Key string
}

// PinsOf is the skills of a v0.2 index as pins.
func PinsOf(idx *IndexV2) []Pin {
	out := make([]Pin, 0, len(idx.Skills))
	for _, e := range idx.Skills {
		out = append(out, e.Pin())
	}
	return out
}

// Pin is the entry as a pin: its version counts only when SemVer.
func (e EntryV2) Pin() Pin {
	v := e.Version
	if !semver.Valid(v) {
		v = ""
	}
	return Pin{Name: e.Name, Version: v, ContentDigest: e.ContentDigest, Digest: e.Digest}
}

// Change is one thing the guard found about a skill or a release.
type Change struct {
	Skill   string `json:"skill,omitempty"`   // "" for a release
	Release string `json:"release,omitempty"` // a release's version
	Error   bool   `json:"error"`             // else a warning: the build goes on
	Message string `json:"message"`           // names the skill, both versions or digests, and the fix
}

func (c Change) String() string {
	if c.Error {
		return "error: " + c.Message
	}
	return "warning: " + c.Message
}

// Errors counts the changes that are errors.
func Errors(cs []Change) int {
	n := 0
	for _, c := range cs {
		if c.Error {
			n++
		}
	}
	return n
}

// bump is the fix for a version that must change.
func (p Pin) bump(above string) string {
	where := "in the skill's SKILL.md"
	if p.Source != "" {
		where = "in " + p.Source
	}
	key := cmp.Or(p.Key, "metadata.version")
	if above != "" {
		return fmt.Sprintf("set %s %s above %s", key, where, above)
	}
	return "bump " + key + " " + where
}

// Guard compares the skills of a build, or of a bundle, with what prev
// published in its index and its versions.json, and returns every change,
// in the order of next. Errors: content that differs from what prev
// published under the same version; a version lower than prev's; two
// skills of next with one name and version but different content.
// Warnings: a skill gone, or without the version it had, or as published
// but for its index digest (its archive's bytes changed: clients install
// it again). A skill without a version may change freely.
func (prev *Published) Guard(next []Pin) []Change {
	var out []Change
	errorf := func(name, format string, args ...any) {
		out = append(out, Change{Skill: name, Error: true, Message: fmt.Sprintf(format, args...)})
	}
	warnf := func(name, format string, args ...any) {
		out = append(out, Change{Skill: name, Message: fmt.Sprintf(format, args...)})
	}
	was := map[string]Pin{}
	for _, e := range prev.Index.Skills {
		was[e.Name] = e.Pin()
	}
	seen := map[[2]string]Digest{}
	names := map[string]bool{}
	for _, p := range next {
		names[p.Name] = true
		if p.Version == "" {
			if e, ok := was[p.Name]; ok && e.Version != "" {
				warnf(p.Name, "skill %q was published as version %s and has no version now; clients that pinned %s@%s keep the old content", p.Name, e.Version, p.Name, e.Version)
			}
			continue
		}
		key := [2]string{p.Name, p.Version}
		if d, ok := seen[key]; ok && d != p.ContentDigest {
			errorf(p.Name, "skill %q version %s: two skills have this name and version with different content (%s and %s); a version has one content: %s", p.Name, p.Version, d, p.ContentDigest, p.bump(""))
			continue
		}
		seen[key] = p.ContentDigest
		e, ok := was[p.Name]
		// What prev published under this version: its index's entry, or
		// else an older version its versions.json keeps.
		var published Digest
		switch {
		case ok && e.Version == p.Version:
			published = e.ContentDigest
		case prev.Versions != nil:
			if sv := prev.Versions.Find(p.Name, p.Version); sv != nil {
				published = sv.ContentDigest
			}
		}
		if ok && e.Version == p.Version && e.ContentDigest == p.ContentDigest && e.Digest != "" && p.Digest != "" && e.Digest != p.Digest {
			warnf(p.Name, "skill %q version %s: its files are as published, but its archive is other bytes (%s, was %s), so clients that compare digests install it again; archive bytes change with SOURCE_DATE_EPOCH (leave it unset, or the same for every release) and with the skillpack that packs them", p.Name, p.Version, p.Digest, e.Digest)
		}
		if published != "" && published != p.ContentDigest {
			errorf(p.Name, "skill %q: version %s was published with content %s, and this one has %s under the same version; a published version must not change: %s", p.Name, p.Version, published, p.ContentDigest, p.bump(""))
		}
		if ok && e.Version != "" && semver.Compare(p.Version, e.Version) < 0 {
			errorf(p.Name, "skill %q: version %s is lower than %s, the version published last; versions only go up: %s", p.Name, p.Version, e.Version, p.bump(e.Version))
		}
	}
	for _, e := range prev.Index.Skills {
		if !names[e.Name] {
			v := ""
			if e.Version != "" {
				v = " (version " + e.Version + ")"
			}
			warnf(e.Name, "skill %q%s was published and is not in this one; clients that installed it keep it", e.Name, v)
		}
	}
	return out
}

// GuardRelease checks the release a build is about to make against prev's:
// not lower than the latest, and if published already (snapshot, else
// nil), with exactly its skills at their versions.
func (prev *Published) GuardRelease(release string, snapshot *IndexV2, next []Pin) []Change {
	var out []Change
	v := prev.Versions
	if release == "" || v == nil {
		return nil
	}
	errorf := func(format string, args ...any) {
		out = append(out, Change{Release: release, Error: true, Message: fmt.Sprintf(format, args...)})
	}
	if snapshot == nil {
		if v.Latest != "" && semver.Compare(release, v.Latest) < 0 {
			errorf("release %s is lower than %s, the latest published; releases only go up: build with --release-version above %s", release, v.Latest, v.Latest)
		}
		return out
	}
	had, has := map[string]string{}, map[string]string{}
	for _, e := range snapshot.Skills {
		had[e.Name] = e.Version
	}
	for _, p := range next {
		if p.Version != "" {
			has[p.Name] = p.Version
		}
	}
	var diff []string
	names := slices.AppendSeq(slices.Collect(maps.Keys(had)), maps.Keys(has))
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		switch a, b := had[n], has[n]; {
		case a == b:
		case a == "":
			diff = append(diff, fmt.Sprintf("%s %s added", n, b))
		case b == "":
			diff = append(diff, fmt.Sprintf("%s %s gone", n, a))
		default:
			diff = append(diff, fmt.Sprintf("%s %s → %s", n, a, b))
		}
	}
	if len(diff) > 0 {
		errorf("release %s is published already, with other skills or versions (%s); a published release must not change: build with a new --release-version", release, strings.Join(diff, ", "))
	}
	return out
}

// Compare checks a whole bundle, next, against prev, as verify --previous
// does: the skills as Guard does, and, when prev was built with
// --versioned, that next still has every release and skill version prev
// had, with the same bytes, and a latest release no lower than prev's.
func (prev *Published) Compare(next *Published) []Change {
	out := prev.Guard(PinsOf(next.Index))
	pv, nv := prev.Versions, next.Versions
	if pv == nil {
		return out
	}
	errorf := func(skill, release, format string, args ...any) {
		out = append(out, Change{Skill: skill, Release: release, Error: true, Message: fmt.Sprintf(format, args...)})
	}
	if nv == nil {
		errorf("", "", "the previous bundle has %s and this one has not (built without --versioned): every published version's path is gone; build with --versioned", VersionsIndex)
		return out
	}
	if pv.Latest != "" && (nv.Latest == "" || semver.Compare(nv.Latest, pv.Latest) < 0) {
		errorf("", nv.Latest, "the latest release is %q, lower than %s, the previous bundle's; releases only go up", nv.Latest, pv.Latest)
	}
	for _, r := range pv.Releases {
		switch n := nv.FindRelease(r.Version); {
		case n == nil:
			errorf("", r.Version, "release %s was published (%s) and this bundle no longer has it; a published release stays: build with --versioned and --previous", r.Version, Snapshot(r.Version))
		case n.Digest != r.Digest:
			errorf("", r.Version, "release %s was published as %s and this bundle's is %s; a published release must not change", r.Version, r.Digest, n.Digest)
		}
	}
	for _, s := range pv.Skills {
		for i := range s.Versions {
			sv := &s.Versions[i]
			switch n := nv.Find(s.Name, sv.Version); {
			case n == nil:
				errorf(s.Name, "", "skill %q version %s was published (%s) and this bundle no longer has it; a published version stays: build with --versioned and --previous", s.Name, sv.Version, VersionDir(s.Name, sv.Version))
			case !sv.sameFiles(n):
				errorf(s.Name, "", "skill %q version %s was published with other files than this bundle's (content %s, now %s); a published version must not change", s.Name, sv.Version, sv.ContentDigest, n.ContentDigest)
			}
		}
	}
	return out
}

// sameFiles reports whether two records of a version name the same bytes.
func (sv *SkillVersion) sameFiles(o *SkillVersion) bool {
	return sv.ContentDigest == o.ContentDigest && sv.TarGz == o.TarGz && sv.Zip == o.Zip &&
		slices.EqualFunc(sv.Files, o.Files, func(a, b VersionedFile) bool {
			return a.Path == b.Path && a.Digest == b.Digest && a.Exec == b.Exec && sameSize(a.Size, b.Size)
		})
}

// sameSize reports whether two sizes are both absent or equal.
func sameSize(a, b *int64) bool { return a == b || a != nil && b != nil && *a == *b }
