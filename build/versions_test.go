package build

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/internal/signtest"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/verify"
)

// versionedSkill writes a skill whose SKILL.md sets metadata.version, with
// a script beside it.
func versionedSkill(t testing.TB, root, name, version, body string) {
	t.Helper()
	md := "---\nname: " + name + "\ndescription: The " + name + " skill, for tests of versions.\nmetadata:\n  version: \"" + version + "\"\n---\n# " + name + "\n\n" + body + "\n\nRun `sh scripts/run.sh`.\n"
	writeSkillFile(t, root, name, "SKILL.md", md)
	writeSkillFile(t, root, name, "scripts/run.sh", "#!/bin/sh\necho "+name+"\n")
}

// previousDir is a previous bundle in a folder, read as the command reads one.
func previousDir(t testing.TB, loc string) bundle.Source {
	t.Helper()
	r, err := bundle.OpenSource(loc, bundle.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// verified fails the test unless verify finds dir whole.
func verifiedDist(t testing.TB, dir string) {
	t.Helper()
	rep, err := verify.Dist(context.Background(), dir, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("verify %s: %v", dir, rep.Problems)
	}
}

// The life of a versioned bundle: release 1.0.0 with pdf 1.0.0, release
// 1.1.0 with pdf 1.1.0 and a new skill, then a build without pdf. Every
// version's folder and every release's snapshot stays, byte for byte,
// whether the previous bundle is the output folder, a folder elsewhere, or
// a URL; and every bundle verifies.
func TestVersionedReleases(t *testing.T) {
	for _, from := range []string{"output", "folder", "url"} {
		t.Run(from, func(t *testing.T) {
			dir := t.TempDir()
			src, out := filepath.Join(dir, "skills"), filepath.Join(dir, "dist")
			versionedSkill(t, src, "pdf", "1.0.0", "first")
			writeSkillFile(t, src, "plain", "SKILL.md", "---\nname: plain\ndescription: A skill without a version.\n---\nplain\n")
			mustBuild(t, []string{src}, Options{Out: out, Versioned: true, Release: "1.0.0"})
			verifiedDist(t, out)
			first := snapshot(t, out)

			// The next build goes elsewhere when the previous one is read
			// from a folder or a URL, as a CI job that builds afresh does.
			next, prev := out, bundle.Source(nil)
			switch from {
			case "folder":
				next, prev = filepath.Join(dir, "next"), previousDir(t, out)
			case "url":
				srv := httptest.NewServer(http.FileServer(http.Dir(out)))
				t.Cleanup(srv.Close)
				next, prev = filepath.Join(dir, "next"), previousDir(t, srv.URL)
			}
			versionedSkill(t, src, "pdf", "1.1.0", "second")
			versionedSkill(t, src, "new", "0.1.0", "new")
			res := mustBuild(t, []string{src}, Options{Out: next, Versioned: true, Release: "1.1.0", Previous: prev})
			if len(res.Changes) != 0 {
				t.Errorf("changes: %v", res.Changes)
			}
			verifiedDist(t, next)
			second := snapshot(t, next)
			for p, n := range first {
				if pp, ok := layout.ParsePath(filepath.ToSlash(p)); ok && (pp.Kind == layout.KindVersion || pp.Release != "") && second[p].Data != n.Data {
					t.Errorf("%s changed or went", p)
				}
			}
			for _, p := range []string{"pdf/1.0.0/SKILL.md", "pdf/1.1.0/scripts/run.sh", "new/0.1.0/SKILL.md", "v1.0.0/index.json", "v1.1.0/index.json"} {
				if _, ok := second[filepath.FromSlash(layout.SkillsDir+"/"+p)]; !ok {
					t.Errorf("no %s", p)
				}
			}
			if _, ok := second[filepath.FromSlash(layout.SkillsDir+"/plain/1.0.0")]; ok {
				t.Error("a skill without a version has a version's folder")
			}

			// pdf goes: its versions stay, and the guard says it went.
			if err := os.RemoveAll(filepath.Join(src, "pdf")); err != nil {
				t.Fatal(err)
			}
			if from != "output" {
				prev = previousDir(t, next)
			}
			res = mustBuild(t, []string{src}, Options{Out: next, Versioned: true, Previous: prev})
			if len(res.Changes) != 1 || res.Changes[0].Error || !strings.Contains(res.Changes[0].Message, `skill "pdf" (version 1.1.0) was published and is not in this one`) {
				t.Errorf("changes: %v", res.Changes)
			}
			verifiedDist(t, next)
			third := snapshot(t, next)
			for _, p := range []string{"pdf/1.0.0/SKILL.md", "pdf/1.1.0/SKILL.md", "v1.1.0/index.json"} {
				if n, ok := third[filepath.FromSlash(layout.SkillsDir+"/"+p)]; !ok || n.Data != second[filepath.FromSlash(layout.SkillsDir+"/"+p)].Data {
					t.Errorf("%s went or changed with its skill", p)
				}
			}
			if _, ok := third[filepath.FromSlash(layout.SkillsDir+"/pdf/SKILL.md")]; ok {
				t.Error("the removed skill is still served as the latest")
			}
		})
	}
}

// Each way a build would change what was published is refused, naming
// what changed and how to fix it, and leaves the output as it was.
func TestVersionGuard(t *testing.T) {
	dir := t.TempDir()
	src, out := filepath.Join(dir, "skills"), filepath.Join(dir, "dist")
	versionedSkill(t, src, "pdf", "1.2.0", "published")
	mustBuild(t, []string{src}, Options{Out: out, Versioned: true, Release: "2.0.0"})
	before := snapshot(t, out)
	published := func() layout.Digest {
		idx, err := layout.DecodeIndexV2(mustRead(t, filepath.Join(out, filepath.FromSlash(layout.V2Index))))
		if err != nil {
			t.Fatal(err)
		}
		return idx.Skills[0].ContentDigest
	}()
	skillMD := filepath.Join(src, "pdf", "SKILL.md")
	for _, c := range []struct {
		name    string
		version string // pdf's, with new content
		o       Options
		want    []string
	}{
		{"changed, not bumped", "1.2.0", Options{Versioned: true, Release: "2.1.0"}, []string{
			`skill "pdf": version 1.2.0 was published with content ` + string(published) + `, and this one has sha256:`,
			"a published version must not change: bump metadata.version in " + skillMD,
		}},
		{"guard alone, without --versioned", "1.2.0", Options{Previous: previousDir(t, out)}, []string{"version 1.2.0 was published with content"}},
		{"backwards", "1.1.0", Options{Versioned: true}, []string{`skill "pdf": version 1.1.0 is lower than 1.2.0, the version published last; versions only go up: set metadata.version in ` + skillMD + " above 1.2.0"}},
		{"release backwards", "1.3.0", Options{Versioned: true, Release: "1.9.0"}, []string{"release 1.9.0 is lower than 2.0.0, the latest published"}},
		{"release made again with other versions", "1.3.0", Options{Versioned: true, Release: "2.0.0"}, []string{"release 2.0.0 is published already, with other skills or versions (pdf 1.2.0 → 1.3.0)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			versionedSkill(t, src, "pdf", c.version, c.name)
			o := c.o
			o.Out = out
			_, err := Run([]string{src}, o)
			var ve *VersionError
			if !errors.As(err, &ve) {
				t.Fatalf("err %v, want a VersionError", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nlacks %q", err, w)
				}
			}
			sameTree(t, "the output after a refused build", before, snapshot(t, out), false)
		})
	}
	// The same release built again from the same skills is no change.
	versionedSkill(t, src, "pdf", "1.2.0", "published")
	mustBuild(t, []string{src}, Options{Out: out, Versioned: true, Release: "2.0.0"})
	verifiedDist(t, out)
}

// Two skills of one name at one version with other bytes: the build
// refuses them as it refuses any two skills of one name (lint's
// name-duplicate, each finding naming the other folder); a versions.json
// that lists one version twice with other content is layout's Check's.
func TestVersionTwoSkillsOneVersion(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	versionedSkill(t, a, "pdf", "1.0.0", "one")
	versionedSkill(t, b, "pdf", "1.0.0", "other")
	res, err := Run([]string{a, b}, Options{Out: filepath.Join(dir, "dist"), Versioned: true})
	var le *LintError
	if !errors.As(err, &le) || le.Errors != 2 {
		t.Fatalf("err %v; want the two name-duplicate errors", err)
	}
	for _, f := range res.Findings {
		if f.Severity == lint.Error && (f.Rule != "name-duplicate" || !strings.Contains(f.Message, `skill name "pdf" is also used by`)) {
			t.Errorf("finding %+v", f)
		}
	}
}

// A previous bundle that cannot be compared with refuses the build with
// what is wrong with it: not there (with a URL, the HTTP status), not
// one skillpack built, or changed after it was published.
func TestVersionPreviousBad(t *testing.T) {
	dir := t.TempDir()
	src, prev := filepath.Join(dir, "skills"), filepath.Join(dir, "prev")
	versionedSkill(t, src, "pdf", "1.0.0", "body")
	mustBuild(t, []string{src}, Options{Out: prev, Versioned: true, Release: "1.0.0"})
	versionedSkill(t, src, "pdf", "1.0.1", "next")

	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	defer down.Close()
	other := filepath.Join(dir, "other")
	writeSkillFile(t, other, ".well-known/agent-skills", "index.json", `{"skills":[]}`)

	// change replaces a file of prev (or removes it, for nil) for one
	// subtest.
	change := func(rel string, data []byte) func(t *testing.T) {
		return func(t *testing.T) {
			p := filepath.Join(prev, filepath.FromSlash(rel))
			old := mustRead(t, p)
			t.Cleanup(func() { os.WriteFile(p, old, 0o644) })
			if data == nil {
				os.Remove(p)
				return
			}
			os.WriteFile(p, data, 0o644)
		}
	}
	for _, c := range []struct {
		name   string
		from   string
		change func(t *testing.T)
		want   string
	}{
		{"unreachable", down.URL, nil, "HTTP 503 Service Unavailable from " + down.URL + "/checksums.txt"},
		{"another format", other, nil, "checksums.txt: not found"},
		{"index changed", prev, change(layout.V2Index, []byte(`{"skills":[]}`)), "index.json is sha256:"},
		{"a version's file changed", prev, change(layout.VersionFile("pdf", "1.0.0", "scripts/run.sh"), []byte("#!/bin/sh\nrm -rf /\n")), "pdf/1.0.0/scripts/run.sh is sha256:"},
		{"a version's file gone", prev, change(layout.VersionFile("pdf", "1.0.0", "SKILL.md"), nil), "pdf/1.0.0/SKILL.md is missing, though .well-known/agent-skills/versions.json lists it"},
		{"a snapshot changed", prev, change(layout.Snapshot("1.0.0"), []byte("{}\n")), "v1.0.0/index.json is sha256:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.change != nil {
				c.change(t)
			}
			out := filepath.Join(t.TempDir(), "dist")
			_, err := Run([]string{src}, Options{Out: out, Versioned: true, Release: "1.0.1", Previous: previousDir(t, c.from)})
			var pe *PreviousError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want a PreviousError with %q", err, c.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Error("a refused build wrote its output")
			}
		})
	}
}

// serve --watch rebuilds into a spare folder: versions carried there are
// staged like any other, and the bundle verifies after each rebuild.
func TestVersionedSpare(t *testing.T) {
	dir := t.TempDir()
	src, out := filepath.Join(dir, "skills"), filepath.Join(dir, "dist")
	spare := &Spare{}
	defer spare.Close()
	for i, v := range []string{"1.0.0", "1.1.0", "1.2.0", "1.2.0"} {
		versionedSkill(t, src, "pdf", v, "body "+v)
		if i == 2 {
			os.RemoveAll(filepath.Join(src, "pdf"))
			versionedSkill(t, src, "other", "1.0.0", "other")
		}
		mustBuild(t, []string{src}, Options{Out: out, Versioned: true, Spare: spare})
		if i == 0 {
			if err := spare.Prime(out); err != nil {
				t.Fatal(err)
			}
		}
		verifiedDist(t, out)
	}
	for _, p := range []string{"pdf/1.0.0/SKILL.md", "pdf/1.1.0/SKILL.md", "pdf/1.2.0/SKILL.md", "other/1.0.0/SKILL.md"} {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(layout.SkillsDir+"/"+p))); err != nil {
			t.Error(err)
		}
	}
}

func mustRead(t testing.TB, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A version's file changed in the output folder, which a versioned build
// carries its versions from, is found (the file's times show the change,
// so it is hashed) and refuses the build.
func TestVersionOutputTampered(t *testing.T) {
	dir := t.TempDir()
	src, out := filepath.Join(dir, "skills"), filepath.Join(dir, "dist")
	versionedSkill(t, src, "pdf", "1.0.0", "body")
	mustBuild(t, []string{src}, Options{Out: out, Versioned: true})
	p := filepath.Join(out, filepath.FromSlash(layout.VersionFile("pdf", "1.0.0", "scripts/run.sh")))
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	versionedSkill(t, src, "pdf", "1.0.1", "next")
	_, err := Run([]string{src}, Options{Out: out, Versioned: true})
	var pe *PreviousError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "pdf/1.0.0/scripts/run.sh is sha256:") {
		t.Fatalf("err %v, want the changed file named", err)
	}
}

// --sign signs versions.json, which carries the digest of every version's
// file and of every snapshot; those are not signed one by one, so that a
// carried file needs no carried signature.
func TestVersionedSigned(t *testing.T) {
	dir := t.TempDir()
	src, out := filepath.Join(dir, "skills"), filepath.Join(dir, "dist")
	versionedSkill(t, src, "pdf", "1.0.0", "body")
	mustBuild(t, []string{src}, Options{Out: out, Versioned: true, Release: "1.0.0", Sign: fakeSign})
	versionedSkill(t, src, "pdf", "1.1.0", "next")
	mustBuild(t, []string{src}, Options{Out: out, Versioned: true, Release: "1.1.0", Sign: fakeSign})
	sig := mustRead(t, filepath.Join(out, filepath.FromSlash(layout.Signature(layout.VersionsIndex))))
	if want := "signed " + string(layout.DigestOf(mustRead(t, filepath.Join(out, filepath.FromSlash(layout.VersionsIndex))))); string(sig) != want {
		t.Errorf("versions.json's signature is %q, want %q", sig, want)
	}
	for p := range snapshot(t, out) {
		if a, ok := layout.SignedArtifact(filepath.ToSlash(p)); ok {
			if pp, _ := layout.ParsePath(a); pp.Kind == layout.KindVersion || pp.Release != "" {
				t.Errorf("%s is signed", a)
			}
		}
	}
	verifiedDist(t, out)
}

// A top-level version is Claude Code's key: under a profile that knows it
// (claude) it is the skill's version, in the index and as a version's
// folder; under the spec profile, where lint calls it unknown, the skill
// is published without a version.
func TestTopLevelVersion(t *testing.T) {
	src := t.TempDir()
	writeSkillFile(t, src, "cc", "SKILL.md", "---\nname: cc\ndescription: A skill versioned as Claude Code reads it.\nversion: 1.4.0\n---\n# cc\n")
	for _, c := range []struct {
		profile, want string
	}{{"spec", ""}, {"claude", "1.4.0"}} {
		cfg, err := config.Parse("skillpack.yaml", []byte("profile: "+c.profile+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		dist := filepath.Join(t.TempDir(), "dist")
		if _, err := Run([]string{src}, Options{Out: dist, Versioned: true, Release: "1.0.0", Lint: lint.Options{Settings: cfg.Lint}}); err != nil {
			t.Fatalf("%s: %v", c.profile, err)
		}
		data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(layout.V2Index)))
		if err != nil {
			t.Fatal(err)
		}
		idx, err := layout.DecodeIndexV2(data)
		if err != nil || len(idx.Skills) != 1 {
			t.Fatalf("%s: %v, %+v", c.profile, err, idx)
		}
		if got := idx.Skills[0].Version; got != c.want {
			t.Errorf("%s: the index gives version %q, want %q", c.profile, got, c.want)
		}
		_, err = os.Stat(filepath.Join(dist, filepath.FromSlash(layout.VersionFile("cc", "1.4.0", layout.EntryFile))))
		if (err == nil) != (c.want != "") {
			t.Errorf("%s: a folder for version 1.4.0: %v", c.profile, err)
		}
		if c.want == "" {
			continue
		}
		// Changed without a bump: the fix names the key that set it.
		writeSkillFile(t, src, "cc", "SKILL.md", "---\nname: cc\ndescription: A skill versioned as Claude Code reads it.\nversion: 1.4.0\n---\n# cc\n\nChanged.\n")
		_, err = Run([]string{src}, Options{Out: dist, Versioned: true, Release: "1.1.0", Lint: lint.Options{Settings: cfg.Lint}})
		if want := "bump version in " + filepath.Join(src, "cc", "SKILL.md"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: changed without a bump: %v, want %q", c.profile, err, want)
		}
	}
}

// A build without --versioned against a versioned previous bundle is
// refused: it would stop publishing the versions clients pin. Nothing is
// written.
func TestPreviousVersionedNeedsVersioned(t *testing.T) {
	src := t.TempDir()
	versionedSkill(t, src, "pdf", "1.0.0", "first")
	published := filepath.Join(t.TempDir(), "published")
	if _, err := Run([]string{src}, Options{Out: published, Versioned: true, Release: "1.0.0"}); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(t.TempDir(), "dist")
	_, err := Run([]string{src}, Options{Out: dist, Previous: previousDir(t, published)})
	var ve *VersionError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "is versioned (it has "+layout.VersionsIndex+"): a build without --versioned would stop publishing its versions") {
		t.Fatalf("err %v, want a VersionError saying to build with --versioned", err)
	}
	if _, err := os.Stat(dist); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused build wrote %s: %v", dist, err)
	}
	if _, err := Run([]string{src}, Options{Out: dist, Versioned: true, Previous: previousDir(t, published)}); err != nil {
		t.Errorf("with --versioned: %v", err)
	}
}

// The new formats add files and change none of the documents the readers
// of today read: built with --versioned, a release, llms.txt, the AI
// Catalog and signatures, the v0.2 and v0.1 indexes and the MCP documents
// are byte for byte those of a plain build.
func TestNewFormatsKeepDocuments(t *testing.T) {
	src := t.TempDir()
	versionedSkill(t, src, "pdf", "1.0.0", "first")
	writeSkillFile(t, src, "plain", "SKILL.md", "---\nname: plain\ndescription: A skill without a version.\n---\nplain\n")
	base := "https://skills.example.com"
	plain, all := filepath.Join(t.TempDir(), "plain"), filepath.Join(t.TempDir(), "all")
	if _, err := Run([]string{src}, Options{Out: plain, BaseURL: base}); err != nil {
		t.Fatal(err)
	}
	o := Options{Out: all, BaseURL: base, Versioned: true, Release: "1.0.0", LLMsTxt: true, AICatalog: true,
		Sign: signtest.Stub, SignFolder: signtest.StubStatement}
	if _, err := Run([]string{src}, o); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{layout.V2Index, layout.V1Index, layout.MCPSkills, layout.MCPIndex, layout.MCPResources} {
		a, err := os.ReadFile(filepath.Join(plain, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(all, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs with the new formats:\n%s\nplain:\n%s", p, b, a)
		}
	}
	for _, p := range []string{layout.VersionsIndex, layout.Snapshot("1.0.0"), "llms.txt", ".well-known/ai-catalog.json"} {
		if _, err := os.Stat(filepath.Join(all, filepath.FromSlash(p))); err != nil {
			t.Errorf("the new formats' %s: %v", p, err)
		}
	}
}
