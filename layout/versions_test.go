package layout

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
)

// carry is a Versioning.Carried that writes the documents of a previous
// plan, as the build copies them from the previous bundle.
func carry(t *testing.T, prev *Planned) func(string, Rendered) func(io.Writer) error {
	return func(p string, want Rendered) func(io.Writer) error {
		return func(w io.Writer) error {
			e, ok := prev.Lookup(p)
			if !ok || e.Digest != want.Digest {
				t.Errorf("carried %s: previous has it %v with %s, want %s", p, ok, e.Digest, want.Digest)
			}
			_, err := w.Write(docBytes(t, e))
			return err
		}
	}
}

func versionsOf(t *testing.T, b *Planned) *IndexVersions {
	t.Helper()
	v, err := DecodeVersions(data(t, b, VersionsIndex))
	if err != nil {
		t.Fatal(err)
	}
	if errs := v.Check(); len(errs) > 0 {
		t.Fatalf("versions.json does not pass its own Check: %v", errs)
	}
	return v
}

// withVersion is s at version v, with other content.
func withVersion(s Skill, v, body string) Skill {
	s.Frontmatter = []byte(strings.Replace(string(s.Frontmatter), `"version":"2.1.0"`, `"version":"`+v+`"`, 1))
	s.Version = VersionOf(s.Frontmatter, true)
	s.Files = slices.Clone(s.Files)
	for i := range s.Files {
		if s.Files[i].Path == EntryFile {
			s.Files[i].Digest, s.Files[i].Size = DigestOf([]byte(body)), int64(len(body))
		}
	}
	s.ContentDigest = DigestOf([]byte("manifest of " + s.Name + " " + body))
	tgz := []byte("tar.gz of " + s.Name + " " + body)
	s.TarGz = Archive{Digest: DigestOf(tgz), Size: int64(len(tgz))}
	return s
}

// releases makes the first release of twoSkills (pdf-processing 2.1.0;
// hello has no version), then a second with pdf-processing at 2.2.0.
func releases(t *testing.T, o Options) (first, second *Planned) {
	t.Helper()
	o1 := o
	o1.Versioned = &Versioning{Release: "1.0.0"}
	first = plan(t, twoSkills(), o1)
	skills := twoSkills()
	skills[0] = withVersion(skills[0], "2.2.0", "new body")
	o2 := o
	o2.Versioned = &Versioning{Release: "1.1.0", Published: versionsOf(t, first), Carried: carry(t, first)}
	return first, plan(t, skills, o2)
}

func TestVersionedPlan(t *testing.T) {
	first, second := releases(t, Options{Generator: "skillpack test"})
	for _, b := range []*Planned{first, second} {
		es := entries(t, b)
		if !slices.IsSortedFunc(es, func(x, y Entry) int { return strings.Compare(x.Path, y.Path) }) {
			t.Error("entries not sorted by path")
		}
		for i := 1; i < len(es); i++ {
			if es[i].Path == es[i-1].Path {
				t.Errorf("%s listed twice", es[i].Path)
			}
		}
		for _, e := range es {
			pp, ok := ParsePath(e.Path)
			if !ok || pp.String() != e.Path {
				t.Errorf("%s: ParsePath gives %+v, %v", e.Path, pp, ok)
			}
			if e.Kind == KindVersion && (pp.Kind != KindVersion || pp.Version != e.Version || pp.Skill != e.Skill || pp.File != e.File || pp.Format != e.Format) {
				t.Errorf("%s: entry %+v, path %+v", e.Path, e, pp)
			}
		}
	}
	// The second release has both versions of pdf-processing, and hello,
	// which has none, has no folder of versions.
	for _, p := range []string{
		VersionFile("pdf-processing", "2.1.0", EntryFile), VersionFile("pdf-processing", "2.1.0", "scripts/fill.sh"),
		VersionFile("pdf-processing", "2.2.0", EntryFile), Snapshot("1.0.0"), Snapshot("1.1.0"), VersionsIndex,
	} {
		if _, ok := second.Lookup(p); !ok {
			t.Errorf("second release lacks %s", p)
		}
	}
	for _, e := range entries(t, second) {
		if strings.HasPrefix(e.Path, SkillDir("hello")+"/") && e.Kind != KindFile {
			t.Errorf("hello has no version but has %s", e.Path)
		}
	}
	v := versionsOf(t, second)
	if v.Latest != "1.1.0" || !slices.Equal(v.Versions, []string{"1.1.0", "1.0.0"}) {
		t.Errorf("releases: latest %q, versions %v", v.Latest, v.Versions)
	}
	if len(v.Skills) != 1 || v.Skills[0].Name != "pdf-processing" || len(v.Skills[0].Versions) != 2 || v.Skills[0].Versions[0].Version != "2.2.0" {
		t.Fatalf("skills: %+v", v.Skills)
	}
	// Each release's snapshot is the first's bytes, carried; the old one
	// still leads to 2.1.0.
	if !bytes.Equal(data(t, first, Snapshot("1.0.0")), data(t, second, Snapshot("1.0.0"))) {
		t.Error("the snapshot of 1.0.0 changed")
	}
	for _, c := range []struct{ release, version string }{{"1.0.0", "2.1.0"}, {"1.1.0", "2.2.0"}} {
		doc := Snapshot(c.release)
		idx, err := DecodeIndexV2(data(t, second, doc))
		if err != nil {
			t.Fatal(err)
		}
		if len(idx.Skills) != 1 {
			t.Fatalf("%s lists %d skills, want pdf-processing alone", doc, len(idx.Skills))
		}
		e := idx.Skills[0]
		p, ok := ResolveURL(doc, e.URL)
		ar, inBundle := second.Lookup(p.String())
		if !ok || p.Kind != KindVersion || p.Version != c.version || !inBundle || ar.Digest != e.Digest || e.Version != c.version {
			t.Errorf("%s: entry %+v leads to %+v (%v)", doc, e, p, ok)
		}
		if !strings.HasPrefix(e.URL, "../pdf-processing/"+c.version+"/") {
			t.Errorf("%s: url %q is not relative to the snapshot", doc, e.URL)
		}
	}
	// The index itself is the unversioned one's, and checksums.txt lists
	// every archive, the versions' included, and the new documents.
	plain := plan(t, func() []Skill { s := twoSkills(); s[0] = withVersion(s[0], "2.2.0", "new body"); return s }(), Options{Generator: "skillpack test"})
	if !bytes.Equal(data(t, plain, V2Index), data(t, second, V2Index)) {
		t.Error("--versioned changed index.json")
	}
	sums, err := ParseChecksums(data(t, second, Checksums))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, s := range sums {
		listed = append(listed, s.Path)
		if e, ok := second.Lookup(s.Path); !ok || e.Digest != s.Digest {
			t.Errorf("checksums: %s", s.Path)
		}
	}
	for _, e := range entries(t, second) {
		if (e.Format != "" || summed(e.Path)) != slices.Contains(listed, e.Path) {
			t.Errorf("checksums.txt and %s: listed %v", e.Path, slices.Contains(listed, e.Path))
		}
	}
	// What versions.json names is what the plan has.
	for _, a := range v.Artifacts() {
		if e, ok := second.Lookup(a.Path); !ok || e.Digest != a.Digest || e.Size != a.Size {
			t.Errorf("versions.json names %s %s %d; the plan has %+v", a.Path, a.Digest, a.Size, e)
		}
	}
}

// A skill that is gone keeps its published versions, and a release made
// again carries its snapshot rather than writing it anew.
func TestVersionsOfRemovedSkill(t *testing.T) {
	_, second := releases(t, Options{})
	o := Options{Versioned: &Versioning{Release: "1.1.0", Published: versionsOf(t, second), Carried: carry(t, second)}}
	third := plan(t, []Skill{twoSkills()[1]}, o)
	for _, p := range []string{VersionFile("pdf-processing", "2.1.0", EntryFile), VersionFile("pdf-processing", "2.2.0", "assets/form.json"), Snapshot("1.1.0")} {
		if _, ok := third.Lookup(p); !ok {
			t.Errorf("the skill's versions went with it: no %s", p)
		}
	}
	if _, ok := third.Lookup(SkillFile("pdf-processing", EntryFile)); ok {
		t.Error("a skill not in the build is served at the top")
	}
	e, _ := third.Lookup(Snapshot("1.1.0"))
	if want, _ := second.Lookup(Snapshot("1.1.0")); e.Digest != want.Digest {
		t.Error("release 1.1.0 was rendered again, not carried")
	}
	if !bytes.Equal(data(t, second, VersionsIndex), data(t, third, VersionsIndex)) {
		t.Errorf("versions.json changed though no version did:\n%s", data(t, third, VersionsIndex))
	}
}

func TestVersionedPlanRefuses(t *testing.T) {
	first, _ := releases(t, Options{})
	pub := versionsOf(t, first)
	changed := withVersion(twoSkills()[0], "2.1.0", "changed")
	clash := makeSkill("clash", "C.", content{"SKILL.md": "x", "1.0.0/notes.md": "n"}, `,"metadata":{"version":"3.0.0"}`)
	archived := makeSkill("arch", "A.", content{"SKILL.md": "x", "arch-0123456789abcdef.zip": "z"}, `,"metadata":{"version":"3.0.0"}`)
	for _, c := range []struct {
		name   string
		skills []Skill
		v      Versioning
		want   string
	}{
		{"changed under its version", []Skill{changed}, Versioning{Published: pub, Carried: carry(t, first)}, "version 2.1.0 is published with content"},
		{"release lower", twoSkills(), Versioning{Release: "0.9.0", Published: pub, Carried: carry(t, first)}, "release 0.9.0 is lower than 1.0.0"},
		{"release not semver", twoSkills(), Versioning{Release: "v1"}, `release "v1" is not a SemVer version`},
		{"folder named as a version", []Skill{clash}, Versioning{}, `file "1.0.0/notes.md" is in a folder named as a version`},
		{"file named as an archive", []Skill{archived}, Versioning{}, "named as an archive of the skill"},
		{"carried without Carried", twoSkills(), Versioning{Published: pub}, "Carried is nil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Plan(List(c.skills), Options{Versioned: &c.v})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
	// Without --versioned those skills are fine.
	plan(t, []Skill{clash, archived}, Options{})
}

func TestVersionedPaths(t *testing.T) {
	d := DigestOf([]byte("a"))
	for p, want := range map[string]Path{
		SkillsDir + "/v1.2.0/index.json":           {Kind: KindDoc, Doc: Snapshot("1.2.0"), Release: "1.2.0"},
		SkillsDir + "/v1.2.0-rc.1/index.json":      {Kind: KindDoc, Doc: Snapshot("1.2.0-rc.1"), Release: "1.2.0-rc.1"},
		VersionsIndex:                              {Kind: KindDoc, Doc: VersionsIndex},
		VersionFile("pdf", "1.0.0", "SKILL.md"):    {Kind: KindVersion, Skill: "pdf", Version: "1.0.0", File: "SKILL.md"},
		VersionFile("pdf", "1.0.0", "a/b.md"):      {Kind: KindVersion, Skill: "pdf", Version: "1.0.0", File: "a/b.md"},
		VersionArchive("pdf", "1.0.0+b.1", d, Zip): {Kind: KindVersion, Skill: "pdf", Version: "1.0.0+b.1", Short: d.Short(), Format: Zip},
		// Not a version's: a file named as another skill's archive, and
		// folders that are no versions.
		VersionFile("pdf", "1.0.0", ArchiveName("other", d, Zip)): {Kind: KindVersion, Skill: "pdf", Version: "1.0.0", File: ArchiveName("other", d, Zip)},
		SkillFile("pdf", "1.0/SKILL.md"):                          {Kind: KindFile, Skill: "pdf", File: "1.0/SKILL.md"},
		SkillFile("pdf", "v1.0.0/a"):                              {Kind: KindFile, Skill: "pdf", File: "v1.0.0/a"},
		SkillFile("pdf", "1.0.0"):                                 {Kind: KindFile, Skill: "pdf", File: "1.0.0"},
		LegacyFile("pdf", "1.0.0/x"):                              {Kind: KindFile, Legacy: true, Skill: "pdf", File: "1.0.0/x"},
	} {
		got, ok := ParsePath(p)
		if !ok || got != want {
			t.Errorf("ParsePath(%s) = %+v, %v; want %+v", p, got, ok, want)
			continue
		}
		if got.String() != p {
			t.Errorf("%+v spells %s, not %s", got, got.String(), p)
		}
	}
	for _, p := range []string{SkillsDir + "/v1.2/index.json", SkillsDir + "/1.2.0/index.json", SkillsDir + "/v1.2.0/other.json"} {
		if got, ok := ParsePath(p); ok && got.Release != "" {
			t.Errorf("ParsePath(%s) = %+v", p, got)
		}
	}
	if _, ok := ParseURI("skill://pdf/1.0.0/SKILL.md"); !ok {
		t.Error("a skill file under a folder named as a version is still a resource")
	} else if u, _ := ParseURI("skill://pdf/1.0.0/SKILL.md"); u.Kind != KindFile {
		t.Errorf("MCP has no versions, but the URI parses as %v", u.Kind)
	}
	if SignedPath(VersionFile("pdf", "1.0.0", "SKILL.md")) || SignedPath(VersionArchive("pdf", "1.0.0", d, TarGz)) || !SignedPath(VersionsIndex) {
		t.Error("SignedPath: versions.json is signed, and the versions' files through it")
	}
}

func TestResolveURL(t *testing.T) {
	doc := Snapshot("1.0.0")
	for u, want := range map[string]string{
		"../pdf/1.0.0/SKILL.md": VersionFile("pdf", "1.0.0", "SKILL.md"),
		"https://x.example/a/.well-known/agent-skills/pdf/1.0.0/SKILL.md": VersionFile("pdf", "1.0.0", "SKILL.md"),
		"../pdf-0123456789abcdef.zip":                                     SkillsDir + "/pdf-0123456789abcdef.zip",
		"../versions.json":                                                VersionsIndex,
	} {
		if p, ok := ResolveURL(doc, u); !ok || p.String() != want {
			t.Errorf("ResolveURL(%q) = %v, %v; want %s", u, p, ok, want)
		}
	}
	for _, u := range []string{"", "/pdf/1.0.0/SKILL.md", "../../../etc/passwd", "../../skills/pdf/SKILL.md", "../pdf/1.0.0/SKILL.md?x", "https://x.example/pdf/SKILL.md", `..\pdf\SKILL.md`} {
		if p, ok := ResolveURL(doc, u); ok {
			t.Errorf("ResolveURL(%q) = %v", u, p)
		}
	}
}

func TestVersionsCheck(t *testing.T) {
	first, _ := releases(t, Options{})
	good := versionsOf(t, first)
	for _, c := range []struct {
		name   string
		change func(v *IndexVersions)
		want   string
	}{
		{"latest", func(v *IndexVersions) { v.Latest = "0.1.0" }, "newest of versions"},
		{"order", func(v *IndexVersions) {
			v.Versions = []string{"0.1.0", "1.0.0"}
			v.Releases = append(v.Releases, v.Releases[0])
		}, "newest first"},
		{"not semver", func(v *IndexVersions) { v.Skills[0].Versions[0].Version = "2.1" }, `"2.1" is not a SemVer version`},
		{"twice, other content", func(v *IndexVersions) {
			sv := v.Skills[0].Versions[0]
			sv.ContentDigest = DigestOf([]byte("other"))
			v.Skills[0].Versions = append(v.Skills[0].Versions, sv)
		}, "listed twice with different content"},
		{"a file's digest", func(v *IndexVersions) { v.Skills[0].Versions[0].Files[0].Digest = "sha256:x" }, "needs a digest"},
		{"url elsewhere", func(v *IndexVersions) { v.Skills[0].Versions[0].URL = "../../etc/passwd" }, "does not lead to"},
		{"type", func(v *IndexVersions) { v.Skills[0].Versions[0].Type = TypeSkillMD }, "its files make it type"},
		{"no SKILL.md", func(v *IndexVersions) { v.Skills[0].Versions[0].Files = v.Skills[0].Versions[0].Files[1:] }, "no SKILL.md"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, _ := DecodeVersions(data(t, first, VersionsIndex))
			c.change(v)
			errs := v.Check()
			if !strings.Contains(fmtErrs(errs), c.want) {
				t.Errorf("Check: %v, want %q", errs, c.want)
			}
		})
	}
	if errs := good.Check(); len(errs) != 0 {
		t.Error(errs)
	}
}

func fmtErrs(errs []error) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString(e.Error() + "\n")
	}
	return b.String()
}

func TestGoldenVersioned(t *testing.T) {
	_, second := releases(t, Options{Generator: "skillpack v0.0.0-test (klauspost/compress v1.20.3 flate 6)"})
	golden(t, "plan-versioned.txtar", render(t, second))
}
