package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/signtest"
	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
	"github.com/skillpack/skillpack/verify"
)

// verifyAt verifies the bundle at source with every signature required.
func verifyAt(t *testing.T, source string) (*verify.Report, error) {
	t.Helper()
	return verifyWith(t, source, Options{})
}

// verifyWith is verifyAt with the store opened with o.
func verifyWith(t *testing.T, source string, o Options) (*verify.Report, error) {
	t.Helper()
	st, err := OpenStore(source, o, verify.DefaultMaxSkills)
	if err != nil {
		t.Fatal(err)
	}
	return verify.Objects(context.Background(), st, verify.Options{Verifier: signtest.StubVerifier{}, RequireSignatures: true})
}

// wantProblem fails unless rep has a problem at path (any, if "") whose
// message has every one of subs.
func wantProblem(t *testing.T, rep *verify.Report, path string, subs ...string) {
	t.Helper()
next:
	for _, p := range rep.Problems {
		if path != "" && p.Path != path {
			continue
		}
		for _, s := range subs {
			if !strings.Contains(p.Message, s) {
				continue next
			}
		}
		t.Logf("%s: %s", p.Path, p.Message)
		return
	}
	var all bytes.Buffer
	rep.WriteText(&all)
	t.Errorf("no problem at %s with %q; got:\n%s", path, subs, all.String())
}

// blobFile is where the registry keeps a blob.
func blobFile(storage string, d layout.Digest) string {
	return filepath.Join(storage, "docker", "registry", "v2", "blobs", "sha256", d.Hex()[:2], d.Hex(), "data")
}

// A published bundle verifies from the registry: every .tar.gz, SKILL.md,
// document and signature the registry holds is read and checked (every
// signature of the documents too, though three of them are named
// index.json: a publish one request at a time once attached only one of
// those), and the .zip archives and served copies it does not hold are
// counted, not reported.
func TestVerifyRegistry(t *testing.T) {
	host, storage := testtool.RegistryStorage(t, "")
	_, b := newBundle(t)
	target := "oci://" + host + "/acme/skills:v1"
	publishTo(t, b, target, Options{Retry: publish.Retry{Jobs: 1}})

	rep := mustVerify(t, target)
	sigs, docSigs := 0, 0
	for _, o := range b.Objects {
		if a, ok := layout.SignedArtifact(o.Path); ok && layout.ArchiveFormat(a) != layout.Zip {
			sigs++
			if publish.StageOf(a) != publish.Archives {
				docSigs++
			}
		}
	}
	c := rep.Checked
	if c.Skills != len(b.Skills) || c.Archives != len(b.Skills) || c.Signatures != sigs+len(b.Skills) || docSigs != 4 || c.NotHeld == 0 || rep.Source != target {
		t.Errorf("checked %+v of %s; want %d skills, one archive each, %d signatures (%d of documents, and a folder signature a skill), some files not held", c, rep.Source, len(b.Skills), sigs+len(b.Skills), docSigs)
	}
	t.Log(rep.Summary())

	// Each change below is undone before the next.
	tamper := func(d layout.Digest, change func([]byte) []byte) (undo func()) {
		t.Helper()
		file := blobFile(storage, d)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, change(bytes.Clone(data)), 0o644); err != nil {
			t.Fatal(err)
		}
		return func() { os.WriteFile(file, data, 0o644) }
	}
	victim := b.Skills[1].TarGz
	undo := tamper(victim.Digest, func(data []byte) []byte { data[len(data)/2] ^= 1; return data })
	rep, _ = verifyAt(t, target)
	changed := digest.FromBytes(func() []byte { d, _ := os.ReadFile(blobFile(storage, victim.Digest)); return d }())
	wantProblem(t, rep, victim.Path, "the registry's blob "+string(victim.Digest)+" is "+string(changed)+", but its manifest says "+string(victim.Digest))
	undo()

	undo = tamper(victim.Digest, func(data []byte) []byte { return append(data, '!') })
	rep, _ = verifyAt(t, target)
	wantProblem(t, rep, victim.Path, "mismatch Content-Length")
	undo()

	// The indexes, changed in the registry: their blobs say so. Without
	// the v0.2 index there is nothing to verify, as over HTTP.
	docs := map[string]publish.Object{}
	for _, o := range b.Objects {
		docs[o.Path] = o
	}
	undo = tamper(docs[layout.V2Index].Digest, func(data []byte) []byte { return bytes.Replace(data, []byte("CSV"), []byte("TSV"), 1) })
	if _, err := verifyAt(t, target); err == nil || !strings.Contains(err.Error(), ", but its manifest says "+string(docs[layout.V2Index].Digest)) {
		t.Errorf("the v0.2 index changed: %v", err)
	}
	undo()
	undo = tamper(docs[layout.MCPSkills].Digest, func(data []byte) []byte { return bytes.Replace(data, []byte("CSV"), []byte("TSV"), 1) })
	rep, _ = verifyAt(t, target)
	wantProblem(t, rep, layout.MCPSkills, ", but its manifest says "+string(docs[layout.MCPSkills].Digest))
	undo()

	// A folder signature changed in the registry.
	folder := b.Skills[2].FolderSignature
	undo = tamper(folder.Digest, func(data []byte) []byte { return bytes.Replace(data, []byte(`"statement"`), []byte(`"Statement"`), 1) })
	rep, _ = verifyAt(t, target)
	wantProblem(t, rep, folder.Path, ", but its manifest says "+string(folder.Digest))
	undo()

	// A blob the registry lost.
	md := b.Skills[0].SkillMD
	file := blobFile(storage, md.Digest)
	data, _ := os.ReadFile(file)
	os.Remove(file)
	rep, _ = verifyAt(t, target)
	wantProblem(t, rep, md.Path, "")
	os.WriteFile(file, data, 0o644)

	if rep, err := verifyAt(t, target); err != nil || !rep.OK() {
		t.Fatalf("restored: %v, %v", err, rep.Problems)
	}

	// Not a bundle's collection, or none.
	for source, msg := range map[string]string{
		"oci://" + host + "/acme/skills:release-notes-1.2.0": "is one skill's artifact, not a bundle",
		"oci://" + host + "/acme/skills:nothing":             "not found",
		"oci://" + host + "/acme/none":                       "not found",
	} {
		if _, err := verifyAt(t, source); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v; want %q", source, err, msg)
		}
	}
}

// A collection that is not what was published: a skill's manifest gone
// from the registry, an extra skill in the collection, a skill listed
// under another name.
func TestVerifyRegistryCollection(t *testing.T) {
	f := published(t)
	ctx := context.Background()
	var idx ocispec.Index
	fetchJSON(t, f.repo, "latest", &idx)
	idxDesc, err := f.repo.Resolve(ctx, "latest")
	if err != nil {
		t.Fatal(err)
	}
	var docs ocispec.Descriptor
	f.repo.Referrers(ctx, idxDesc, ArtifactTypeDocuments, func(refs []ocispec.Descriptor) error { docs = refs[0]; return nil })

	// retag pushes a collection of entries, with the published documents
	// attached to it, and tags it.
	retag := func(tag string, entries []ocispec.Descriptor, docsChange ...func(*ocispec.Manifest)) string {
		t.Helper()
		m := idx
		m.Manifests = entries
		data, _ := json.Marshal(m)
		d := descriptorOf(ocispec.MediaTypeImageIndex, data)
		if err := f.repo.Manifests().PushReference(ctx, d, bytes.NewReader(data), tag); err != nil {
			t.Fatal(err)
		}
		// The documents, attached to the new collection.
		var dm ocispec.Manifest
		fetchJSON(t, f.repo, string(docs.Digest), &dm)
		dm.Subject = &ocispec.Descriptor{MediaType: d.MediaType, Digest: d.Digest, Size: d.Size}
		for _, change := range docsChange {
			change(&dm)
		}
		ddata, _ := json.Marshal(dm)
		dd := descriptorOf(ocispec.MediaTypeImageManifest, ddata)
		dd.ArtifactType = ArtifactTypeDocuments
		if err := f.repo.Manifests().Push(ctx, dd, bytes.NewReader(ddata)); err != nil {
			t.Fatal(err)
		}
		return "oci://" + f.px.host + "/acme/skills:" + tag
	}

	// An extra skill: a published one's artifact under another name.
	var m ocispec.Manifest
	fetchJSON(t, f.repo, string(idx.Manifests[0].Digest), &m)
	m.Annotations[annSkillName] = "extra"
	m.Annotations[annSkillMDDigest], m.Annotations[annTarGzDigest] = "sha256:1", "sha256:2"
	data, _ := json.Marshal(m)
	extra := descriptorOf(ocispec.MediaTypeImageManifest, data)
	if err := f.repo.Manifests().Push(ctx, extra, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	extra.Annotations = map[string]string{annSkillName: "extra"}
	rep, err := verifyAt(t, retag("extra", append(idx.Manifests[:len(idx.Manifests):len(idx.Manifests)], extra)))
	if err != nil {
		t.Fatal(err)
	}
	at := "oci://" + f.px.host + "/acme/skills@" + string(extra.Digest)
	wantProblem(t, rep, layout.SkillFile("extra", layout.EntryFile), "not in the build record")
	wantProblem(t, rep, at, "skill extra's archive layer is titled", "not extra-")
	wantProblem(t, rep, at, `skill extra's config gives name "`+idx.Manifests[0].Annotations[annSkillName]+`", its `+annSkillName+` "extra"`)
	// The two digest annotations are reported in one order on every run
	// (a map gave the other order about one run in five to ten).
	for range 32 {
		var got []string
		for _, p := range rep.Problems {
			if p.Path == at && strings.Contains(p.Message, "but the layer's digest is") {
				got = append(got, p.Message)
			}
		}
		if len(got) != 2 || !strings.Contains(got[0], annTarGzDigest) || !strings.Contains(got[1], annSkillMDDigest) {
			t.Fatalf("want the archive's digest annotation, then SKILL.md's; got %q", got)
		}
		if rep, err = verifyAt(t, "oci://"+f.px.host+"/acme/skills:extra"); err != nil {
			t.Fatal(err)
		}
	}

	// One skill left out, another listed under the wrong name.
	gone := idx.Manifests[0].Annotations[annSkillName]
	renamed := idx.Manifests[1]
	renamed.Annotations = map[string]string{annSkillName: "impostor"}
	rep, err = verifyAt(t, retag("less", append([]ocispec.Descriptor{renamed}, idx.Manifests[2:]...)))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.b.Skills {
		if s.Name == gone {
			wantProblem(t, rep, s.TarGz.Path, "missing")
		}
	}
	wantProblem(t, rep, "oci://"+f.px.host+"/acme/skills@"+string(renamed.Digest), "the collection lists it as skill impostor")

	// Titles that are not where a file may go, or that would put a
	// document in a skill's place; a signature titled outside its skill.
	// (A collection of its own: the published one would then have two
	// documents referrers.)
	rep, err = verifyAt(t, retag("titles", idx.Manifests[1:], func(dm *ocispec.Manifest) {
		dm.Layers[0].Annotations = map[string]string{annTitle: "../../escape"}
		dm.Layers[1].Annotations = map[string]string{annTitle: layout.SkillFile("csv-profiler", layout.EntryFile)}
	}))
	if err != nil {
		t.Fatal(err)
	}
	at = "oci://" + f.px.host + "/acme/skills@"
	wantProblem(t, rep, "", `a layer is titled "../../escape", which is not a path inside a bundle`)
	wantProblem(t, rep, "", "the layer titled "+layout.SkillFile("csv-profiler", layout.EntryFile)+" is not a document")
	sig := signatureManifest(idx.Manifests[1], blob{desc: descriptorOf(ArtifactTypeSigstoreBundle, []byte("{}")), data: []byte("{}")}, "../../x.tar.gz.sigstore.json")
	for _, b := range sig.blobs {
		if err := f.repo.Blobs().Push(ctx, b.desc, bytes.NewReader(b.data)); err != nil && !strings.Contains(err.Error(), "exists") {
			t.Fatal(err)
		}
	}
	if err := f.repo.Manifests().Push(ctx, sig.desc, bytes.NewReader(sig.data)); err != nil {
		t.Fatal(err)
	}
	rep, err = verifyAt(t, f.target)
	if err != nil {
		t.Fatal(err)
	}
	wantProblem(t, rep, at+string(sig.desc.Digest), `is titled "../../x.tar.gz.sigstore.json", which is not the signature of what it is attached to`)

	// A skill's manifest deleted from the registry.
	victim := idx.Manifests[2]
	if err := f.repo.Manifests().Delete(ctx, victim); err != nil {
		t.Fatal(err)
	}
	rep, err = verifyAt(t, f.target)
	if err != nil {
		t.Fatal(err)
	}
	wantProblem(t, rep, "oci://"+f.px.host+"/acme/skills@"+string(victim.Digest), "the registry does not have it")
}

// A skill's folder signature goes to the registry attached to its
// manifest; verify checks it against the files of the skill's archive,
// and pull writes it into the skill's folder, where verifying the folder
// finds it. One that lists another skill's files is refused by both.
func TestFolderSignatures(t *testing.T) {
	host, _ := testtool.RegistryStorage(t, "")
	_, b := newBundle(t)
	target := "oci://" + host + "/acme/skills:v1"
	publishTo(t, b, target, Options{})
	if rep, err := verifyAt(t, target); err != nil || !rep.OK() || rep.Checked.Signatures == 0 {
		t.Fatalf("verify: %v, %+v", err, rep)
	}
	out := t.TempDir()
	if _, err := Pull(context.Background(), target, out, "", pulling); err != nil {
		t.Fatal(err)
	}
	for _, s := range b.Skills {
		if got, want := readFile(t, filepath.Join(out, s.Name, layout.FolderSignatureFile)), readDist(t, b, s.FolderSignature.Path); !bytes.Equal(got, want) {
			t.Errorf("skill %s: pulled a skill.oms.sig of %d bytes, DIST's is %d", s.Name, len(got), len(want))
		}
		rep, err := verify.Folder(context.Background(), filepath.Join(out, s.Name), "", verify.Options{Verifier: signtest.StubVerifier{}, RequireSignatures: true})
		if err != nil || !rep.OK() {
			t.Errorf("the pulled folder of %s does not verify: %v, %+v", s.Name, err, rep)
		}
	}

	// Skill 2's folder signature swapped for skill 3's before publishing.
	victim, other := b.Skills[2], b.Skills[3]
	swapped := filepath.Join(b.Dir, filepath.FromSlash(victim.FolderSignature.Path))
	if err := os.WriteFile(swapped, readDist(t, b, other.FolderSignature.Path), 0o644); err != nil {
		t.Fatal(err)
	}
	b2, err := publish.Open(b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	target = "oci://" + host + "/acme/swapped:v1"
	publishTo(t, b2, target, Options{})
	rep, err := verifyAt(t, target)
	if err != nil {
		t.Fatal(err)
	}
	wantProblem(t, rep, victim.FolderSignature.Path, "a file of skill \""+victim.Name+"\"")
	out = t.TempDir()
	if _, err := Pull(context.Background(), target, out, victim.Name, pulling); err != nil {
		t.Fatal(err)
	}
	if rep, err := verify.Folder(context.Background(), filepath.Join(out, victim.Name), "", verify.Options{Verifier: signtest.StubVerifier{}}); err == nil && rep.OK() {
		t.Errorf("the pulled folder of %s verifies with %s's signature", victim.Name, other.Name)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A versioned bundle's version folders are held as the skills' version
// tags name them: verify finds each version's SKILL.md and .tar.gz in the
// skill's artifact, and reports a version tag moved to other bytes.
func TestVerifyVersioned(t *testing.T) {
	host, _ := testtool.RegistryStorage(t, "")
	ctx0 := context.Background()
	tmp := t.TempDir()
	skills := filepath.Join(tmp, "skills")
	if err := os.CopyFS(skills, os.DirFS("../../examples")); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(tmp, "dist")
	if _, err := build.Run([]string{skills}, build.Options{Out: dist, Versioned: true, Sign: stubSign, SignFolder: signtest.StubStatement}); err != nil {
		t.Fatal(err)
	}
	b, err := publish.Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	target := "oci://" + host + "/acme/skills:v1"
	publishTo(t, b, target, Options{})
	rep, err := verifyAt(t, target)
	if err != nil {
		t.Fatal(err)
	}
	versioned := 0
	for _, s := range b.Skills {
		if s.Version != "" {
			versioned++
		}
	}
	// Each versioned skill's archive is checked twice: as the skill's and
	// as its version's.
	if !rep.OK() || versioned == 0 || rep.Checked.Archives != len(b.Skills)+versioned {
		var all bytes.Buffer
		rep.WriteText(&all)
		t.Fatalf("%d versioned skills of %d; checked %+v:\n%s", versioned, len(b.Skills), rep.Checked, all.String())
	}

	// The next release: a skill at a new version. Its version folders
	// hold the earlier version too, which publish sends the registry only
	// as that version's tag: verify finds it there.
	md := filepath.Join(skills, "release-notes", "SKILL.md")
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`version: "1.2.0"`), []byte(`version: "1.3.0"`), 1)
	if err := os.WriteFile(md, append(data, "\nChanged in 1.3.0.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := build.Run([]string{skills}, build.Options{Out: dist, Versioned: true, Sign: stubSign, SignFolder: signtest.StubStatement}); err != nil {
		t.Fatal(err)
	}
	b2, err := publish.Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	publishTo(t, b2, "oci://"+host+"/acme/skills:v2", Options{})
	if rep, err := verifyAt(t, "oci://"+host+"/acme/skills:v2"); err != nil || !rep.OK() || rep.Checked.Archives != len(b2.Skills)+versioned+1 {
		var all bytes.Buffer
		if rep != nil {
			rep.WriteText(&all)
		}
		t.Fatalf("the second release (release-notes 1.2.0 and 1.3.0): %v, checked %+v:\n%s", err, rep.Checked, all.String())
	}
	// In a repository that never had the first release (a mirror, a new
	// registry), the carried version 1.2.0 is pushed as its tag.
	if len(b2.Carried) != 1 {
		t.Fatalf("the second release carries %+v; want release-notes 1.2.0", b2.Carried)
	}
	fresh := "oci://" + host + "/acme/fresh:v2"
	publishTo(t, b2, fresh, Options{})
	if rep, err := verifyAt(t, fresh); err != nil || !rep.OK() {
		var all bytes.Buffer
		if rep != nil {
			rep.WriteText(&all)
		}
		t.Fatalf("the second release in a new repository: %v:\n%s", err, all.String())
	}
	// A bundle built without --versioned would stop publishing the
	// versions clients pin there: refused, as a bucket refuses it.
	flat := filepath.Join(tmp, "flat")
	if _, err := build.Run([]string{skills}, build.Options{Out: flat}); err != nil {
		t.Fatal(err)
	}
	b3, err := publish.Open(flat)
	if err != nil {
		t.Fatal(err)
	}
	var unversioned *publish.UnversionedError
	if err := Publish(ctx0, b3, fresh, Options{}, func(publish.Result) {}); !errors.As(err, &unversioned) {
		t.Errorf("an unversioned bundle over a versioned release: %v, want refused", err)
	}
	if rep, err := verifyAt(t, fresh); err != nil || !rep.OK() {
		t.Errorf("the refused publish changed the release: %v", err)
	}

	// The version tag moved to another skill's manifest.
	var pinned, other publish.Skill
	for _, s := range b.Skills {
		if s.Version != "" && pinned.Name == "" {
			pinned = s
		} else {
			other = s
		}
	}
	repo := repoOf(t, host, "acme/skills")
	ctx := context.Background()
	otherDesc, err := repo.Resolve(ctx, "v1")
	if err != nil {
		t.Fatal(err)
	}
	var idx ocispec.Index
	fetchJSON(t, repo, string(otherDesc.Digest), &idx)
	for _, m := range idx.Manifests {
		if m.Annotations[annSkillName] == other.Name {
			otherDesc = m
		}
	}
	tag, _ := VersionTag(pinned.Name, pinned.Version)
	if err := repo.Tag(ctx, otherDesc, tag); err != nil {
		t.Fatal(err)
	}
	rep, _ = verifyAt(t, target)
	wantProblem(t, rep, "", "version tag "+tag+" names "+string(otherDesc.Digest), "bump the skill's version")
}

// A bundle with plugins (build/testdata/plugins, signed, with the four
// marketplaces, so each plugin's folder too) carries its plugins'
// .tar.gz archives and their signatures to the registry, verifies from
// there, and a plugin archive changed in the registry is refused.
func TestVerifyRegistryPlugins(t *testing.T) {
	host, storage := testtool.RegistryStorage(t, "")
	b := rebuild(t, filepath.Join("..", "..", "build", "testdata", "plugins"), filepath.Join(t.TempDir(), "dist"), "claude", "codex", "cursor", "copilot")
	target := "oci://" + host + "/acme/plugins:v1"
	publishTo(t, b, target, Options{Retry: publish.Retry{Jobs: 1}})
	var victim *publish.Object
	for i, o := range b.Objects {
		if strings.HasPrefix(o.Path, layout.PluginsDir+"/") && layout.ArchiveFormat(o.Path) == layout.TarGz {
			victim = &b.Objects[i]
		}
	}
	if victim == nil {
		t.Fatal("the bundle holds no plugin .tar.gz")
	}
	mustVerify(t, target)
	file := blobFile(storage, victim.Digest)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the registry does not hold %s: %v", victim.Path, err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, _ := verifyAt(t, target)
	wantProblem(t, rep, victim.Path, "but its manifest says "+string(victim.Digest))
}

// mustVerify fails the test unless the bundle at target verifies, and
// returns the report.
func mustVerify(t *testing.T, target string) *verify.Report {
	t.Helper()
	rep, err := verifyAt(t, target)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		var all bytes.Buffer
		rep.WriteText(&all)
		t.Fatalf("the published bundle does not verify:\n%s", all.String())
	}
	return rep
}
