package oci

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/publish"
)

// The manifests are built from the bundle alone, with no time in them, so
// the same bundle gives the same manifest digests on every publish, and a
// skill's digest names its content wherever it is pushed. Only the
// collection (and the documents, which refer to it) names where it is,
// in its entries' references.

// blob is one blob to push and where its bytes are: a file of DIST (path)
// or bytes made here (data: a config, the empty config).
type blob struct {
	desc ocispec.Descriptor
	path string // relative to DIST, slash-separated; "" when data holds it
	data []byte
	name string // the skill a config is of ("empty": the empty config), for the report
}

// manifest is one manifest to push: its bytes and descriptor, and the
// blobs (or, for the collection, the manifests) it needs first.
type manifest struct {
	desc  ocispec.Descriptor
	data  []byte
	blobs []blob
}

// skillConfig is the config blob: the skill's frontmatter fields, as the
// specification's config has them.
type skillConfig struct {
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description"`
	License     string `json:"license,omitempty"`
}

// blobOf is a file of DIST as a blob.
func blobOf(o publish.Object) blob {
	return blob{desc: ocispec.Descriptor{Digest: digest.Digest(o.Digest), Size: o.Size}, path: o.Path}
}

func descriptorOf(mediaType string, data []byte) ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(data), Size: int64(len(data))}
}

// mustJSON marshals the package's own types, which cannot fail to.
func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// skillManifest is a skill's artifact: the config, the archive as the
// content layer (first, where readers that take one layer look) and
// SKILL.md, each layer titled so that `oras pull` writes it under its
// DIST name.
func skillManifest(s publish.Skill) manifest {
	cfg := mustJSON(skillConfig{Name: s.Name, Version: s.Version, Description: s.Description, License: s.License})
	config := blob{desc: descriptorOf(MediaTypeSkillConfig, cfg), data: cfg, name: s.Name}

	tarGz := blobOf(s.TarGz)
	tarGz.desc.MediaType = MediaTypeSkillContent
	tarGz.desc.Annotations = map[string]string{annTitle: path.Base(s.TarGz.Path)}
	md := blobOf(s.SkillMD)
	md.desc.MediaType = MediaTypeSkillMD
	md.desc.Annotations = map[string]string{annTitle: "SKILL.md"}

	ann := map[string]string{
		annTitle:         s.Name,
		annSkillName:     s.Name,
		annDescription:   s.Description,
		annContentDigest: string(s.ContentDigest),
		annTarGzDigest:   string(s.TarGz.Digest),
		annSkillMDDigest: string(s.SkillMD.Digest),
	}
	if s.Zip.Digest != "" {
		ann[annZipDigest] = string(s.Zip.Digest)
	}
	if s.Version != "" {
		ann[annVersion] = s.Version
	}
	if s.License != "" {
		ann[annLicenses] = s.License
	}
	return imageManifest(ArtifactTypeSkill, config, []blob{tarGz, md}, nil, ann)
}

// imageManifest is an image manifest of artifactType: config and layers,
// and subject for a referrer.
func imageManifest(artifactType string, config blob, layers []blob, subject *ocispec.Descriptor, ann map[string]string) manifest {
	descs := make([]ocispec.Descriptor, len(layers))
	for i, l := range layers {
		descs[i] = l.desc
	}
	data := mustJSON(ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: artifactType,
		Config:       config.desc,
		Layers:       descs,
		Subject:      subject,
		Annotations:  ann,
	})
	desc := descriptorOf(ocispec.MediaTypeImageManifest, data)
	desc.ArtifactType = artifactType
	return manifest{desc: desc, data: data, blobs: append([]blob{config}, layers...)}
}

// emptyConfig is the image spec's empty descriptor, {}: a Sigstore bundle
// needs no config.
var emptyConfig = blob{desc: ocispec.DescriptorEmptyJSON, data: ocispec.DescriptorEmptyJSON.Data, name: "empty"}

// signatureManifest attaches a Sigstore bundle of message signatures to
// subject as cosign does (its "Cosign Bundle Specification"). The layer
// and the manifest are titled with the signature's DIST name, which says
// which archive it signs; attach finds the title in subject's referrers.
func signatureManifest(subject ocispec.Descriptor, sig blob, title string) manifest {
	sig.desc.MediaType = ArtifactTypeSigstoreBundle
	sig.desc.Annotations = map[string]string{annTitle: title}
	return referrer(ArtifactTypeSigstoreBundle, subject, []blob{sig},
		map[string]string{annSigstoreContent: "message-signature", annTitle: title})
}

// folderSignatureManifest attaches a skill folder's signature to the
// skill's manifest, titled skill.oms.sig so that `oras pull` of the
// referrer writes it under the name OMS verifiers look for.
func folderSignatureManifest(subject ocispec.Descriptor, sig blob) manifest {
	sig.desc.MediaType = ArtifactTypeSigstoreBundle
	sig.desc.Annotations = map[string]string{annTitle: layout.FolderSignatureFile}
	return referrer(ArtifactTypeFolderSignature, subject, []blob{sig},
		map[string]string{annSigstoreContent: "dsse-envelope", annTitle: layout.FolderSignatureFile})
}

// referrer is an artifact of layers, with the empty config, that refers to
// subject.
func referrer(artifactType string, subject ocispec.Descriptor, layers []blob, ann map[string]string) manifest {
	return imageManifest(artifactType, emptyConfig, layers, &ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size}, ann)
}

// maxManifestSize is the largest manifest every registry must take: the
// distribution spec asks registries to accept at least 4 MiB, and some
// (Docker Hub) accept no more. It bounds what publish pushes and what
// pull and verify read (fetchManifest).
const maxManifestSize = 4 << 20

// collectionIndex is the bundle's artifact: an image index whose
// manifests are the skills', each annotated with its name, reference and
// description as the specification's collections are. It must live in the
// skills' repository: a registry refuses an index whose manifests it does
// not hold there. When the index would be larger than every registry
// takes (10,000 descriptions of 1,024 characters are 10 MB), the
// descriptions are left out, and if need be the references too: a client
// reads them from the skills' manifests. About 10,000 skills fit in the
// smallest.
func collectionIndex(t Target, name string, bundleKey string, skills []skillRef) manifest {
	// detail 2: descriptions and references; 1: references; 0: names.
	for detail := 2; ; detail-- {
		if m := buildIndex(t, name, bundleKey, skills, detail); len(m.data) <= maxManifestSize || detail == 0 {
			return m
		}
	}
}

func buildIndex(t Target, name string, bundleKey string, skills []skillRef, detail int) manifest {
	entries := make([]ocispec.Descriptor, len(skills))
	for i, s := range skills {
		ann := map[string]string{annSkillName: s.name}
		if detail >= 1 {
			ann[annSkillRef] = t.Ref(string(s.desc.Digest))
		}
		if s.version != "" {
			ann[annVersion] = s.version
		}
		if detail == 2 && s.description != "" {
			ann[annDescription] = s.description
		}
		entries[i] = ocispec.Descriptor{
			MediaType:    s.desc.MediaType,
			ArtifactType: ArtifactTypeSkill,
			Digest:       s.desc.Digest,
			Size:         s.desc.Size,
			Annotations:  ann,
		}
	}
	idx := ocispec.Index{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageIndex,
		ArtifactType: ArtifactTypeCollection,
		Manifests:    entries,
		Annotations: map[string]string{
			annCollectionName: name,
			annTitle:          name,
			annBundleKey:      bundleKey,
		},
	}
	data := mustJSON(idx)
	desc := descriptorOf(ocispec.MediaTypeImageIndex, data)
	desc.ArtifactType = ArtifactTypeCollection
	return manifest{desc: desc, data: data}
}

// skillRef is a pushed skill as the collection lists it.
type skillRef struct {
	name, version, description string
	desc                       ocispec.Descriptor
}

// documentsManifest holds the bundle's documents, each a layer titled
// with its DIST path, as a referrer of the collection.
func documentsManifest(subject ocispec.Descriptor, bundleKey string, docs []blob) manifest {
	titled := make([]blob, len(docs))
	for i, d := range docs {
		d.desc.Annotations = map[string]string{annTitle: d.path}
		titled[i] = d
	}
	return referrer(ArtifactTypeDocuments, subject, titled, map[string]string{annTitle: documentsTitle, annBundleKey: bundleKey})
}

// documentsTitle is the documents artifact's title among the collection's
// referrers.
const documentsTitle = "documents"

// mediaTypeOf is a Content-Type as a descriptor takes it: without its
// parameters (charset), which the image spec's media type grammar has no
// room for.
func mediaTypeOf(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	if mt = strings.TrimSpace(mt); mt == "" {
		return "application/octet-stream"
	}
	return mt
}
