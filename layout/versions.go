package layout

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/semver"
)

// Versions and immutable releases, for a build with --versioned, after
// agentskills/agentskills PR #380 (open as of Nov 2026): an optional version
// per v0.2 index entry, an immutable snapshot of the index per release, and
// versions.json listing the releases:
//
//	.well-known/agent-skills/index.json              the latest, mutable (unchanged)
//	.well-known/agent-skills/versions.json           every release and every skill version, mutable
//	.well-known/agent-skills/v<release>/index.json   a release's snapshot, immutable
//	.well-known/agent-skills/<name>/<version>/...    a skill version's files and archives, immutable
//
// Where the proposal is open, skillpack chooses:
//   - A skill version has a folder of its own, <name>/<version>/, with its
//     files and its two content-addressed archives, so that it can be pinned
//     alone; a snapshot's urls lead there ("../<name>/<version>/...", as RFC
//     3986 resolves them). A skill without a version is in no snapshot.
//   - versions.json keeps the proposal's "latest" and "versions" (newest
//     first, as its reference registry serves them) and adds "releases"
//     (each snapshot's url, digest and size) and "skills" (every published
//     version with its files and archives): the one manifest of everything
//     immutable, which a later build carries forward, verify checks, serve
//     serves and its signature covers.
//   - The build refuses a skill whose content changed under a published
//     version (guard.go).

// VersionsIndex is versions.json, beside the v0.2 index.
const VersionsIndex = SkillsDir + "/versions.json"

// Snapshot is the dist path of release's immutable snapshot of the v0.2
// index. No skill folder can be there: a version has dots, names have not.
func Snapshot(release string) string { return SkillsDir + "/v" + release + "/index.json" }

// VersionDir is the folder of a skill's published version.
func VersionDir(name, version string) string { return SkillDir(name) + "/" + version }

// VersionFile is where a file (path in the skill folder) of a skill's
// published version is served.
func VersionFile(name, version, path string) string { return VersionDir(name, version) + "/" + path }

// VersionArchive is where an archive of a skill's published version is
// served, under its content-addressed name.
func VersionArchive(name, version string, digest Digest, ext string) string {
	return VersionDir(name, version) + "/" + ArchiveName(name, digest, ext)
}

// CheckRelease returns why v cannot be a release's version (SemVer), or
// nil. A leading "v", as git tags have, is for the caller to drop.
func CheckRelease(v string) error {
	if semver.Valid(v) {
		return nil
	}
	if s := semver.Suggest(v); s != "" {
		return fmt.Errorf("release %q is not a SemVer version; did you mean %s?", v, s)
	}
	return fmt.Errorf("release %q is not a SemVer version such as 1.2.0", v)
}

func parseSnapshot(p string) (Path, bool) {
	rest, ok := strings.CutPrefix(p, SkillsDir+"/v")
	if !ok {
		return Path{}, false
	}
	r, ok := strings.CutSuffix(rest, "/index.json")
	if !ok || !semver.Valid(r) {
		return Path{}, false
	}
	return Path{Kind: KindDoc, Doc: p, Release: r}, true
}

// versioned parses "<name>/<version>/<rest>" of the v0.2 tree, a path
// CheckPath accepted: a file of the version, or an archive of the skill.
// With --versioned, the build refuses a skill whose own files would be
// read so (VersionClash).
func versioned(s string) (Path, bool) {
	name, rest, _ := strings.Cut(s, "/")
	v, sub, ok := strings.Cut(rest, "/")
	if !ok || CheckName(name) != nil || !semver.Valid(v) {
		return Path{}, false
	}
	if n, short, ext, ok := ParseArchiveName(sub); ok && n == name {
		return Path{Kind: KindVersion, Skill: name, Version: v, Short: short, Format: ext}, true
	}
	return Path{Kind: KindVersion, Skill: name, Version: v, File: sub}, true
}

// VersionClash says why a skill's own file would be taken for a file of
// one of its versions (in a folder named as a SemVer version, or at the
// root named as one of its archives), or "".
func VersionClash(name, file string) string {
	first, _, nested := strings.Cut(file, "/")
	switch {
	case nested && semver.Valid(first):
		return fmt.Sprintf("file %q is in a folder named as a version (%s), where --versioned serves the skill's published versions; rename the folder", file, first)
	case !nested:
		if n, _, _, ok := ParseArchiveName(first); ok && n == name {
			return fmt.Sprintf("file %q is named as an archive of the skill, as its versions' archives are named; rename it", file)
		}
	}
	return ""
}

// ResolveURL is the Path a url in the document at doc leads to: relative
// to the document's folder ("../pdf/1.0.0/SKILL.md" in a Snapshot), or
// absolute under any base URL. Like ParseIndexURL it reads the url as a
// string, not percent-decoded, and accepts only paths of the v0.2 tree.
func ResolveURL(doc, u string) (Path, bool) {
	var p string
	switch {
	case strings.Contains(u, "://"):
		p = absPath(SkillsDir, u)
	case u == "" || strings.HasPrefix(u, "/") || strings.ContainsAny(u, "?#\\"):
		return Path{}, false
	default:
		p = path.Join(path.Dir(doc), u)
	}
	if !strings.HasPrefix(p, SkillsDir+"/") {
		return Path{}, false
	}
	pp, ok := ParsePath(p)
	if !ok || pp.Legacy {
		return Path{}, false
	}
	return pp, true
}

// IndexVersions is versions.json (VersionsIndex). Latest and Versions are
// PR #380's; Releases and Skills are skillpack's; Skills, the long array,
// is last, as stream needs.
type IndexVersions struct {
	Latest   string          `json:"latest,omitempty"` // the newest release; absent before the first
	Versions []string        `json:"versions"`         // every release, newest first
	Releases []Release       `json:"releases"`         // Versions again, each with its snapshot
	Skills   []SkillVersions `json:"skills"`           // by name
}

// Release is one release: its snapshot's url (relative to versions.json,
// unless the bundle has a base URL), digest and size.
type Release struct {
	Version string `json:"version"`
	URL     string `json:"url"`
	Digest  Digest `json:"digest"`
	Size    *int64 `json:"size"`
}

// SkillVersions is every published version of one skill, newest first.
type SkillVersions struct {
	Name     string         `json:"name"`
	Versions []SkillVersion `json:"versions"`
}

// SkillVersion is one published version of a skill. Type, URL and Digest
// are what an index entry would say of it (see Target), so that a client
// can install name@version from here alone; Files, TarGz and Zip are
// everything in its folder.
type SkillVersion struct {
	Version       string          `json:"version"`
	Type          string          `json:"type"`
	URL           string          `json:"url"`
	Digest        Digest          `json:"digest"`
	ContentDigest Digest          `json:"contentDigest"`
	Files         []VersionedFile `json:"files"` // sorted by path, SKILL.md among them
	TarGz         Archive         `json:"tarGz"`
	Zip           Archive         `json:"zip"`
}

// VersionedFile is one file of a published version.
type VersionedFile struct {
	Path   string `json:"path"`
	Digest Digest `json:"digest"`
	Size   *int64 `json:"size"`
	Exec   bool   `json:"exec,omitempty"`
}

// DecodeVersions reads versions.json, checking only its shape (Check
// checks the values).
func DecodeVersions(data []byte) (*IndexVersions, error) {
	return decode[IndexVersions](VersionsIndex, data)
}

// newestFirst orders versions newest first: by SemVer precedence, then
// (for build metadata) by their bytes, so that the order is total.
func newestFirst(a, b string) int {
	return cmp.Or(semver.Compare(b, a), strings.Compare(b, a))
}

// Check returns everything wrong with a versions.json, each error naming
// the entry: versions not SemVer, out of order or listed twice, releases
// that are not its versions, impossible digests or sizes, and entries
// whose type, url or digest are not what their files make them. The build
// checks the previous bundle's with it, and verify any.
func (v *IndexVersions) Check() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch {
	case len(v.Versions) == 0 && v.Latest != "":
		bad("latest is %q, but versions is empty", v.Latest)
	case len(v.Versions) > 0 && v.Latest != v.Versions[0]:
		bad("latest is %q, but the newest of versions is %q", v.Latest, v.Versions[0])
	}
	ordered("versions", v.Versions, true, bad)
	if len(v.Releases) != len(v.Versions) {
		bad("releases lists %d releases, versions %d; they must be the same", len(v.Releases), len(v.Versions))
	}
	for i, r := range v.Releases {
		label := fmt.Sprintf("releases[%d] %q", i, r.Version)
		if i < len(v.Versions) && r.Version != v.Versions[i] {
			bad("%s: versions[%d] is %q; releases must list the versions in their order", label, i, v.Versions[i])
		}
		if p, ok := ResolveURL(VersionsIndex, r.URL); !ok || p.Release != r.Version {
			bad("%s: url %q does not lead to %s", label, r.URL, Snapshot(r.Version))
		}
		if !r.Digest.Valid() || r.Size == nil || *r.Size <= 0 {
			bad("%s: needs a digest (\"sha256:\" and 64 lowercase hex digits) and a size", label)
		}
	}
	ordered("skills", keys(v.Skills, func(s SkillVersions) string { return s.Name }), false, bad)
	for _, s := range v.Skills {
		if err := CheckName(s.Name); err != nil {
			bad("skill %q: %v", s.Name, err)
			continue
		}
		if len(s.Versions) == 0 {
			bad("skill %q: lists no version", s.Name)
		}
		for i := 1; i < len(s.Versions); i++ {
			a, b := &s.Versions[i-1], &s.Versions[i]
			if a.Version == b.Version && a.ContentDigest != b.ContentDigest {
				bad("skill %q version %s: listed twice with different content (%s and %s); a version has one content", s.Name, a.Version, a.ContentDigest, b.ContentDigest)
			}
		}
		ordered(fmt.Sprintf("skill %q: versions", s.Name), keys(s.Versions, func(x SkillVersion) string { return x.Version }), true, bad)
		for _, sv := range s.Versions {
			for _, err := range sv.check(s.Name) {
				bad("skill %q version %s: %v", s.Name, sv.Version, err)
			}
		}
	}
	return errs
}

// ordered reports keys that are not strictly in order (by cmp), or not
// valid SemVer versions when versions is set: what says which list.
func ordered(what string, keys []string, versions bool, bad func(string, ...any)) {
	order, less := "sorted by name", strings.Compare
	if versions {
		order, less = "newest first", newestFirst
	}
	for i, k := range keys {
		if versions && !semver.Valid(k) {
			bad("%s: %q is not a SemVer version", what, k)
			continue
		}
		switch {
		case i == 0:
		case keys[i-1] == k:
			bad("%s: %q is listed twice", what, k)
		case less(keys[i-1], k) > 0:
			bad("%s: %q comes after %q; they must be %s", what, k, keys[i-1], order)
		}
	}
}

func keys[T any](values []T, key func(T) string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = key(v)
	}
	return out
}

// check returns what is wrong with one version of skill name.
func (sv *SkillVersion) check(name string) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for i, f := range sv.Files {
		if err := CheckPath(f.Path); err != nil {
			bad("file %q: %v", f.Path, err)
		} else if why := VersionClash(name, f.Path); why != "" {
			bad("%s", why)
		}
		if i > 0 && sv.Files[i-1].Path >= f.Path {
			bad("file %q: files must be sorted by path, each once", f.Path)
		}
		if !f.Digest.Valid() || f.Size == nil || *f.Size < 0 {
			bad("file %q: needs a digest (\"sha256:\" and 64 lowercase hex digits) and a size", f.Path)
		}
	}
	if sv.entry().Path == "" {
		bad("no %s among its files", EntryFile)
	}
	for _, a := range archives(sv.TarGz, sv.Zip) {
		if !a.a.Digest.Valid() || a.a.Size <= 0 {
			bad("%s: needs a digest and a positive size", a.ext)
		}
	}
	if !sv.ContentDigest.Valid() {
		bad("contentDigest %q is not \"sha256:\" and 64 lowercase hex digits", sv.ContentDigest)
	}
	if len(errs) > 0 {
		return errs
	}
	typ, target, digest := sv.Target(name)
	if sv.Type != typ || sv.Digest != digest {
		bad("type %q and digest %s, but its files make it type %q with digest %s", sv.Type, sv.Digest, typ, digest)
	}
	if p, ok := ResolveURL(VersionsIndex, sv.URL); !ok || p.String() != target {
		bad("url %q does not lead to %s", sv.URL, target)
	}
	return errs
}

// Target is what an index entry for the version says (and Check requires
// of its Type, URL and Digest): the type, and the dist path and digest of
// its SKILL.md when it has no other file, else of its .tar.gz. sv must
// have passed Check.
func (sv *SkillVersion) Target(name string) (typ, distPath string, digest Digest) {
	if len(sv.Files) == 1 {
		return TypeSkillMD, VersionFile(name, sv.Version, EntryFile), sv.entry().Digest
	}
	return TypeArchive, VersionArchive(name, sv.Version, sv.TarGz.Digest, TarGz), sv.TarGz.Digest
}

// entries are the files of the version's folder, sorted by path.
func (sv *SkillVersion) entries(name string) []Entry {
	es := make([]Entry, 0, len(sv.Files)+2)
	for _, f := range sv.Files {
		es = append(es, Entry{Path: VersionFile(name, sv.Version, f.Path), Kind: KindVersion, Skill: name, Version: sv.Version,
			File: f.Path, Digest: f.Digest, Size: *f.Size})
	}
	for _, a := range archives(sv.TarGz, sv.Zip) {
		es = append(es, Entry{Path: VersionArchive(name, sv.Version, a.a.Digest, a.ext), Kind: KindVersion, Skill: name,
			Version: sv.Version, Format: a.ext, Digest: a.a.Digest, Size: a.a.Size})
	}
	slices.SortFunc(es, func(x, y Entry) int { return strings.Compare(x.Path, y.Path) })
	return es
}

// Artifacts lists every file the versions.json names, with its digest and
// size: each release's snapshot and every file and archive of every skill
// version. v must have passed Check.
func (v *IndexVersions) Artifacts() []Artifact {
	var out []Artifact
	for _, r := range v.Releases {
		out = append(out, Artifact{Path: Snapshot(r.Version), Digest: r.Digest, Size: *r.Size})
	}
	for _, s := range v.Skills {
		for i := range s.Versions {
			for _, e := range s.Versions[i].entries(s.Name) {
				out = append(out, Artifact{Path: e.Path, Digest: e.Digest, Size: e.Size})
			}
		}
	}
	return out
}

// Find returns a skill's version, or nil.
func (v *IndexVersions) Find(name, version string) *SkillVersion {
	if v == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(v.Skills, name, func(s SkillVersions, n string) int { return strings.Compare(s.Name, n) })
	if !ok {
		return nil
	}
	return find(v.Skills[i].Versions, func(sv *SkillVersion) bool { return sv.Version == version })
}

// FindRelease returns a release, or nil.
func (v *IndexVersions) FindRelease(version string) *Release {
	if v == nil {
		return nil
	}
	return find(v.Releases, func(r *Release) bool { return r.Version == version })
}

// find returns the first element of s that match accepts, or nil.
func find[T any](s []T, match func(*T) bool) *T {
	for i := range s {
		if match(&s[i]) {
			return &s[i]
		}
	}
	return nil
}

// Versioning is what a --versioned build adds to its bundle
// (Options.Versioned): a folder for every published version of every
// skill, versions.json, and the snapshot of its release.
type Versioning struct {
	// Release is this build's release (SemVer), or "" for none: then only
	// the skills' versions are added.
	Release string
	// Published is the previous bundle's versions.json, or nil: its
	// versions and releases are carried forward, so that a path once
	// published keeps existing, and a skill at a version it lists must
	// have the content it lists.
	Published *IndexVersions
	// Carried is the Write of a snapshot carried forward (one Published
	// lists, with its digest and size), which only the caller can read.
	Carried func(path string, want Rendered) func(io.Writer) error
}

// history is the versions of a set's skills: Published's and this
// build's.
type history struct {
	v        *Versioning
	skills   []skillHistory           // by name
	releases []Release                // newest first; this build's digest and size set once measured
	snapshot bool                     // this build writes v.Release's snapshot (not none, not carried)
	added    map[string]*SkillVersion // this build's new versions, by name
}

// skillHistory is every version of one skill.
type skillHistory struct {
	name     string
	versions []SkillVersion // newest first
}

func newHistory(v *Versioning) (*history, error) {
	h := &history{v: v, added: map[string]*SkillVersion{}}
	if v.Release != "" {
		if err := CheckRelease(v.Release); err != nil {
			return nil, err
		}
	}
	if v.Published != nil {
		if err := errors.Join(v.Published.Check()...); err != nil {
			return nil, fmt.Errorf("the previous %s: %w", VersionsIndex, err)
		}
		h.releases = slices.Clone(v.Published.Releases)
	}
	if r := v.Release; r != "" && v.Published.FindRelease(r) == nil {
		if len(h.releases) > 0 && semver.Compare(r, h.releases[0].Version) < 0 {
			return nil, fmt.Errorf("release %s is lower than %s, the latest published; releases only go up: give this build a release above %s", r, h.releases[0].Version, h.releases[0].Version)
		}
		h.releases = slices.Insert(h.releases, 0, Release{Version: r})
		h.snapshot = true
	}
	return h, nil
}

// add takes a skill of the set: a version not published yet becomes a
// new version.
func (h *history) add(sk Skill) error {
	v := sk.Version
	pub := h.v.Published.Find(sk.Name, v)
	if v == "" && !h.published(sk.Name) {
		return nil // no folder of its own, and none published
	}
	var errs []error
	for _, f := range sk.Files {
		if why := VersionClash(sk.Name, f.Path); why != "" {
			errs = append(errs, fmt.Errorf("skill %q: %s", sk.Name, why))
		}
	}
	switch {
	case v == "":
	case pub != nil && pub.ContentDigest != sk.ContentDigest:
		errs = append(errs, fmt.Errorf("skill %q: version %s is published with content %s, and this build's is %s; a published version must not change: bump the skill's version", sk.Name, v, pub.ContentDigest, sk.ContentDigest))
	case pub == nil:
		sv := &SkillVersion{Version: v, ContentDigest: sk.ContentDigest, TarGz: sk.TarGz, Zip: sk.Zip}
		for _, f := range sk.Files {
			sv.Files = append(sv.Files, VersionedFile{Path: f.Path, Digest: f.Digest, Size: new(f.Size), Exec: f.Exec})
		}
		slices.SortFunc(sv.Files, func(a, b VersionedFile) int { return strings.Compare(a.Path, b.Path) })
		h.added[sk.Name] = sv
	}
	return errors.Join(errs...)
}

// published reports whether Published lists a version of the skill.
func (h *history) published(name string) bool {
	p := h.v.Published
	return p != nil && slices.ContainsFunc(p.Skills, func(s SkillVersions) bool { return s.Name == name })
}

// settle makes the history of every skill once the set's rows are known
// (Published's, with this build's new versions), and points each row at
// its skill's.
func (h *history) settle(rows []row) {
	if p := h.v.Published; p != nil {
		for _, s := range p.Skills {
			h.skills = append(h.skills, skillHistory{name: s.Name, versions: slices.Clone(s.Versions)})
		}
	}
	find := func(name string) (int, bool) {
		return slices.BinarySearchFunc(h.skills, name, func(s skillHistory, n string) int { return strings.Compare(s.name, n) })
	}
	for _, name := range slices.Sorted(maps.Keys(h.added)) {
		i, ok := find(name)
		if !ok {
			h.skills = slices.Insert(h.skills, i, skillHistory{name: name})
		}
		h.skills[i].versions = append(h.skills[i].versions, *h.added[name])
	}
	h.added = nil
	for _, s := range h.skills {
		slices.SortFunc(s.versions, func(a, b SkillVersion) int { return newestFirst(a.Version, b.Version) })
	}
	for i := range rows {
		if j, ok := find(rows[i].name); ok {
			rows[i].hist = int32(j + 1)
		}
	}
}

// url spells a dist path for a document of the v0.2 tree at doc: relative
// to doc's folder, so that a bundle works under any prefix, or under the
// base URL.
func (s *set) url(doc, distPath string) string {
	if s.o.BaseURL != "" {
		return joinURL(s.o.BaseURL, distPath)
	}
	rel := strings.TrimPrefix(distPath, SkillsDir+"/")
	for d := path.Dir(strings.TrimPrefix(doc, SkillsDir+"/")); d != "."; d = path.Dir(d) {
		rel = "../" + rel
	}
	return rel
}

// snapshotDoc renders the snapshot of this build's release: the v0.2
// index of its skills that have a version, each at its version's folder.
func (s *set) snapshotDoc(w io.Writer) error {
	h := s.hist
	doc := Snapshot(h.v.Release)
	versioned := func(r *row) bool { return r.hist > 0 && r.version != "" }
	return stream(w, IndexV2{Schema: Schema, Generator: s.o.Generator, Skills: []EntryV2{}}, array{"skills", s.each(versioned, func(r *row, sk Skill) (any, error) {
		sv := find(h.skills[r.hist-1].versions, func(sv *SkillVersion) bool { return sv.Version == r.version })
		if sv == nil {
			return nil, fmt.Errorf("skill %q: version %s is not in its history", r.name, r.version)
		}
		typ, target, digest := sv.Target(r.name)
		return EntryV2{Name: r.name, Type: typ, Description: sk.Description, Version: sv.Version,
			URL: s.url(doc, target), Digest: digest, ContentDigest: sv.ContentDigest}, nil
	})})
}

// entry returns the version's SKILL.md; Check guarantees there is one.
func (sv *SkillVersion) entry() *VersionedFile {
	return cmp.Or(find(sv.Files, func(f *VersionedFile) bool { return f.Path == EntryFile }), &VersionedFile{})
}

// versionsDoc renders versions.json; snapshot is this build's snapshot,
// when it writes one.
func (s *set) versionsDoc(snapshot Rendered) func(io.Writer) error {
	h := s.hist
	doc := IndexVersions{Versions: []string{}, Releases: []Release{}, Skills: []SkillVersions{}}
	for _, r := range h.releases {
		if h.snapshot && r.Version == h.v.Release {
			r.Digest, r.Size = snapshot.Digest, new(snapshot.Size)
		}
		r.URL = s.url(VersionsIndex, Snapshot(r.Version))
		doc.Versions = append(doc.Versions, r.Version)
		doc.Releases = append(doc.Releases, r)
	}
	if len(doc.Versions) > 0 {
		doc.Latest = doc.Versions[0]
	}
	return func(w io.Writer) error {
		return stream(w, doc, array{"skills", func(yield func(any, error) bool) {
			for _, sh := range h.skills {
				out := SkillVersions{Name: sh.name, Versions: slices.Clone(sh.versions)}
				for j := range out.Versions {
					sv := &out.Versions[j]
					var target string
					sv.Type, target, sv.Digest = sv.Target(sh.name)
					sv.URL = s.url(VersionsIndex, target)
				}
				if !yield(out, nil) {
					return
				}
			}
		}})
	}
}

// versionEntries are the files of every version of history entry i (1-based).
func (s *set) versionEntries(i int32) []Entry {
	sh := &s.hist.skills[i-1]
	var es []Entry
	for j := range sh.versions {
		es = append(es, sh.versions[j].entries(sh.name)...)
	}
	slices.SortFunc(es, func(x, y Entry) int { return strings.Compare(x.Path, y.Path) })
	return es
}

// versionDocs adds the documents of a versioned bundle: versions.json
// (whose Write Plan sets once the snapshot is measured), this build's
// snapshot, and every snapshot carried forward (Carried).
func (b *Planned) versionDocs() error {
	h := b.set.hist
	b.docs = append(b.docs, Entry{Path: VersionsIndex, Kind: KindDoc})
	if h.snapshot {
		b.docs = append(b.docs, Entry{Path: Snapshot(h.v.Release), Kind: KindDoc, Write: b.set.snapshotDoc})
	}
	for _, r := range h.releases {
		if h.snapshot && r.Version == h.v.Release {
			continue
		}
		if h.v.Carried == nil {
			return errors.New("layout: snapshots are carried forward, but Versioning.Carried is nil")
		}
		p, want := Snapshot(r.Version), Rendered{Digest: r.Digest, Size: *r.Size}
		b.docs = append(b.docs, Entry{Path: p, Kind: KindDoc, Write: h.v.Carried(p, want), Digest: want.Digest, Size: want.Size})
	}
	return nil
}

// versionParts adds the versions' files to the count, and a part for each
// skill only in the history; a skill of this build lists its versions'
// files with its own (Entries).
func (b *Planned) versionParts() {
	h := b.set.hist
	inBuild := map[string]bool{}
	for i := range b.set.rows {
		inBuild[b.set.rows[i].name] = true
	}
	for i, s := range h.skills {
		if !inBuild[s.name] {
			b.parts = append(b.parts, part{partVersions, int32(i + 1)})
		}
		for _, sv := range s.versions {
			b.n += len(sv.Files) + 2
		}
	}
}
