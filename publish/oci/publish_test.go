package oci

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// A published bundle is read by the stock oras client: a skill pulled by
// its version tag, or by the digest the collection gives it, is exactly
// SKILL.md and the archive, byte for byte; oras discover lists the
// archives' signatures as referrers.
func TestPublishReadByOras(t *testing.T) {
	reg := startRegistry(t)
	oras := testtool.Need(t, "oras")
	_, b := newBundle(t)
	res := publishTo(t, b, "oci://"+reg.host+"/acme/skills:v1", Options{})
	if n := res.count(); n[publish.Failed]+n[publish.Skipped] > 0 || n[publish.Uploaded] == 0 {
		t.Fatalf("states %v", n)
	}

	repo := repoOf(t, reg.host, "acme/skills")
	idx := complete(t, repo, "v1")
	idxDesc, err := repo.Resolve(context.Background(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	if idx.ArtifactType != ArtifactTypeCollection || idx.Annotations[annBundleKey] != string(b.Key) {
		t.Errorf("index: artifactType %q, annotations %v", idx.ArtifactType, idx.Annotations)
	}
	if len(idx.Manifests) != len(b.Skills) {
		t.Fatalf("the collection lists %d skills, the bundle has %d", len(idx.Manifests), len(b.Skills))
	}
	versioned := 0
	for i, s := range b.Skills {
		d := idx.Manifests[i]
		if d.Annotations[annSkillName] != s.Name {
			t.Fatalf("entry %d is %q, want %s", i, d.Annotations[annSkillName], s.Name)
		}
		ref := reg.host + "/acme/skills@" + string(d.Digest)
		if tag, ok := VersionTag(s.Name, s.Version); ok {
			ref = reg.host + "/acme/skills:" + tag
			versioned++
		}
		out := t.TempDir()
		cmd := exec.Command(oras, "pull", "--plain-http", "-o", out, ref)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("oras pull %s: %v\n%s", ref, err, msg)
		}
		got, _ := os.ReadDir(out)
		var names []string
		for _, e := range got {
			names = append(names, e.Name())
		}
		want := []string{filepath.Base(s.TarGz.Path), "SKILL.md"}
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Fatalf("oras pull %s wrote %v, want %v", ref, names, want)
		}
		for _, f := range []publish.Object{s.SkillMD, s.TarGz} {
			name := filepath.Base(f.Path)
			data, _ := os.ReadFile(filepath.Join(out, name))
			if !bytes.Equal(data, readDist(t, b, f.Path)) {
				t.Errorf("oras pull %s: %s differs from %s", ref, name, f.Path)
			}
		}

		cmd = exec.Command(oras, "discover", "--plain-http", "--format", "json", ref)
		msg, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("oras discover %s: %v\n%s", ref, err, msg)
		}
		if n := strings.Count(string(msg), ArtifactTypeSigstoreBundle); n < len(s.Signatures) {
			t.Errorf("oras discover %s lists %d Sigstore bundles, the skill has %d signatures:\n%s", ref, n, len(s.Signatures), msg)
		}
	}
	// The documents: a referrer of the collection that oras discover
	// finds and oras pull writes back at their DIST paths, byte for byte,
	// with their own signatures attached to it.
	var docs ocispec.Descriptor
	repo.Referrers(context.Background(), idxDesc, ArtifactTypeDocuments, func(refs []ocispec.Descriptor) error {
		for _, r := range refs {
			docs = r
		}
		return nil
	})
	if docs.Digest == "" {
		t.Fatal("the collection has no documents attached")
	}
	msg, err := exec.Command(oras, "discover", "--plain-http", "--format", "json", reg.host+"/acme/skills:v1").CombinedOutput()
	if err != nil || !strings.Contains(string(msg), string(docs.Digest)) {
		t.Errorf("oras discover of the collection (%v) does not list the documents %s:\n%s", err, docs.Digest, msg)
	}
	out := t.TempDir()
	if msg, err := exec.Command(oras, "pull", "--plain-http", "-o", out, reg.host+"/acme/skills@"+string(docs.Digest)).CombinedOutput(); err != nil {
		t.Fatalf("oras pull of the documents: %v\n%s", err, msg)
	}
	docSigs := 0
	for _, o := range b.Objects {
		if o.Stage < publish.MCP {
			continue
		}
		if _, sig := layout.SignedArtifact(o.Path); sig {
			docSigs++
			continue
		}
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(o.Path)))
		if err != nil || !bytes.Equal(data, readDist(t, b, o.Path)) {
			t.Errorf("oras pull of the documents: %s: %v, or other bytes than DIST's", o.Path, err)
		}
	}
	n := 0
	repo.Referrers(context.Background(), docs, ArtifactTypeSigstoreBundle, func(refs []ocispec.Descriptor) error {
		n += len(refs)
		return nil
	})
	if docSigs == 0 || n != docSigs {
		t.Errorf("the documents have %d signatures attached, the bundle %d", n, docSigs)
	}

	if versioned == 0 {
		t.Error("no skill of the examples has a version: the version tag is untested")
	}
}

// Two referrers that bring the same blob (two skills a deterministic
// signer signed alike) would upload it at once, which distribution 2.8
// refuses: the plan sends it with the other blobs instead, once.
func TestPlanSharedSignatureBlob(t *testing.T) {
	target, err := ParseTarget("oci://127.0.0.1:5000/acme/skills:v1")
	if err != nil {
		t.Fatal(err)
	}
	file := func(p, data string) publish.Object {
		return publish.Object{Path: p, Digest: layout.DigestOf([]byte(data)), Size: int64(len(data))}
	}
	sig := `{"signed":"the same"}`
	var skills []publish.Skill
	for _, name := range []string{"one", "two"} {
		skills = append(skills, publish.Skill{
			Name: name, Description: name,
			SkillMD:         file(layout.SkillFile(name, layout.EntryFile), "# "+name),
			TarGz:           file(layout.ArchivePath(name, layout.DigestOf([]byte(name)), layout.TarGz), name+" tar"),
			Zip:             file(layout.ArchivePath(name, layout.DigestOf([]byte(name)), layout.Zip), name+" zip"),
			Signatures:      []publish.Object{file(layout.ArchivePath(name, layout.DigestOf([]byte(name)), layout.TarGz)+layout.SignatureSuffix, sig)},
			FolderSignature: file(layout.FolderSignature(name), name+" folder"),
		})
	}
	p, err := newPlan(target, &publish.Upload{Key: layout.DigestOf([]byte("key")), Skills: skills}, nil, publish.DefaultJobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	inBlobs, folders := 0, 0
	for _, o := range p.objects {
		switch {
		case o.Stage != stageSkills:
		case o.Digest == layout.DigestOf([]byte(sig)):
			inBlobs++
		case strings.HasSuffix(o.Path, layout.FolderSignatureFile):
			folders++
		}
	}
	if inBlobs != 1 || folders != 0 {
		t.Errorf("the shared signature is %d times among the blobs, want once; %d folder signatures are, want none: they go with their referrers", inBlobs, folders)
	}
}
