package oci

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpack/skillpack/publish"
)

// plan is everything one publish pushes, in the order it is pushed: the
// blobs, the skills' manifests, their signatures (referrers), the
// collection index, the documents and their signatures, then the tags. A reader that resolves a tag finds
// the index, every manifest it names, and every blob they name, because
// each stage starts only when the one before it has finished.
type plan struct {
	target Target
	blobs  []blob // unique by digest
	// owners are the skill manifests that name each blob: one of them
	// present means the blob is (a registry takes a manifest only when
	// it holds its blobs), so a republish asks once per skill, not once
	// per blob.
	owners     map[digest.Digest][]ocispec.Descriptor
	skills     []named  // skill manifests
	signatures []named  // referrers of the skill manifests: signatures of archives and folders
	index      manifest // the collection
	documents  named    // the bundle's documents, a referrer of the collection
	docSigs    []named  // the documents' signatures, referrers of documents
	tags       []tagOp  // the release tag last
}

// named is a manifest and what the report calls it.
type named struct {
	what    string
	subject *ocispec.Descriptor // a referrer's
	own     []blob              // a referrer's blobs that it pushes itself (attach)
	manifest
}

// tagOp points tag at a manifest already pushed.
type tagOp struct {
	tag string
	m   manifest
}

// newPlan lays out the artifacts of a bundle. It fails before anything is
// pushed when the bundle's names would collide in the repository.
func newPlan(t Target, bundleKey string, skills []publish.Skill, docs, docSigs []publish.Object) (*plan, error) {
	p := &plan{target: t, owners: map[digest.Digest][]ocispec.Descriptor{}}
	seen := map[digest.Digest]bool{}
	addBlob := func(b blob) {
		if !seen[b.desc.Digest] {
			seen[b.desc.Digest] = true
			p.blobs = append(p.blobs, b)
		}
	}
	var refs []skillRef
	var versionTags []tagOp
	tagOwner := map[string]string{}
	for _, s := range skills {
		m := skillManifest(s)
		for _, b := range m.blobs {
			addBlob(b)
			p.owners[b.desc.Digest] = append(p.owners[b.desc.Digest], m.desc)
		}
		p.skills = append(p.skills, named{what: s.Name, manifest: m})
		refs = append(refs, skillRef{name: s.Name, version: s.Version, description: s.Description, desc: m.desc})
		for _, sig := range s.Signatures {
			// The signature goes with its manifest (attach), not with the
			// other blobs: an archive already signed keeps its signature,
			// so a new one is not sent at all. The empty config, which
			// every signature shares, goes once with the others:
			// distribution 2.8 refused a manifest whose blob another
			// worker was uploading at that moment.
			sm := signatureManifest(m.desc, blobOf(sig), path.Base(sig.Path))
			addBlob(emptyConfig)
			p.signatures = append(p.signatures, named{what: sig.Path, subject: &m.desc, own: sm.blobs[1:], manifest: sm})
		}
		if f := s.FolderSignature; f.Path != "" {
			fm := folderSignatureManifest(m.desc, blobOf(f))
			addBlob(emptyConfig)
			p.signatures = append(p.signatures, named{what: f.Path, subject: &m.desc, own: fm.blobs[1:], manifest: fm})
		}
		if tag, ok := VersionTag(s.Name, s.Version); ok {
			if other, dup := tagOwner[tag]; dup {
				return nil, fmt.Errorf("skills %s and %s would both be tagged %s in %s: rename one or change its version", other, s.Name, tag, t.Repository)
			}
			tagOwner[tag] = s.Name
			versionTags = append(versionTags, tagOp{tag: tag, m: m})
		}
	}
	if owner, clash := tagOwner[t.Tag]; clash {
		return nil, fmt.Errorf("the release tag %s is also skill %s's version tag: choose another tag for %s", t.Tag, owner, t)
	}
	// The collection lists skills by name, as the indexes of DIST do.
	sort.Slice(refs, func(i, j int) bool { return refs[i].name < refs[j].name })
	p.index = collectionIndex(t, collectionName(t), bundleKey, refs)
	var docBlobs []blob
	for _, d := range docs {
		b := blobOf(d)
		b.desc.MediaType = mediaTypeOf(d.ContentType)
		docBlobs = append(docBlobs, b)
	}
	// The documents change with every release, so their blobs go with
	// the others, each retried on its own.
	dm := documentsManifest(p.index.desc, bundleKey, docBlobs)
	for _, b := range docBlobs {
		addBlob(b)
		p.owners[b.desc.Digest] = append(p.owners[b.desc.Digest], dm.desc)
	}
	p.documents = named{what: documentsTitle, subject: &p.index.desc, manifest: dm}
	for _, sig := range docSigs {
		// Titled with the whole DIST path: three documents are named
		// index.json, and attach takes a title it finds for present.
		sm := signatureManifest(dm.desc, blobOf(sig), sig.Path)
		p.docSigs = append(p.docSigs, named{what: sig.Path, subject: &p.documents.desc, own: sm.blobs[1:], manifest: sm})
	}
	addBlob(emptyConfig)
	// A signature's blob goes with its referrer, but two referrers with
	// the same blob (two skills whose identical files a deterministic
	// signer signed alike) would upload it at once, and distribution 2.8
	// refuses a manifest whose blob another worker is uploading: such a
	// blob goes with the others, before either referrer.
	owners := map[digest.Digest]int{}
	for _, list := range [][]named{p.signatures, p.docSigs} {
		for _, m := range list {
			for _, b := range m.own {
				owners[b.desc.Digest]++
			}
		}
	}
	for _, list := range [][]named{p.signatures, p.docSigs} {
		for i := range list {
			list[i].own = slices.DeleteFunc(list[i].own, func(b blob) bool {
				if owners[b.desc.Digest] > 1 || seen[b.desc.Digest] {
					addBlob(b)
					return true
				}
				return false
			})
		}
	}
	p.tags = append(versionTags, tagOp{tag: t.Tag, m: p.index})
	return p, nil
}

// collectionName is the repository's last segment, the name a collection
// client shows (ghcr.io/acme/skills → skills).
func collectionName(t Target) string {
	return t.Repository[strings.LastIndex(t.Repository, "/")+1:]
}
