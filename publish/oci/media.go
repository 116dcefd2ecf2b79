package oci

// The media types and annotation keys of what Publish pushes.
//
// A skill follows the Agent Skills OCI Artifacts specification (Thomas
// Vitale's draft v0.1.0), the proposal most tools implement: skills-oci,
// the Arconia CLI, DocsClaw, Epos, agentkit and others push and read
// exactly these types. ToolHive (dev.toolhive.skills.v1, an OCI image),
// skillimage (plain images) and ocx (a layer of a package) each use their
// own. The collection is the same specification's image index.
const (
	// ArtifactTypeSkill is the artifactType of a skill's manifest.
	ArtifactTypeSkill = "application/vnd.agentskills.skill.v1"
	// MediaTypeSkillConfig is the config blob: the skill's frontmatter
	// fields as JSON (skillConfig).
	MediaTypeSkillConfig = "application/vnd.agentskills.skill.config.v1+json"
	// MediaTypeSkillContent is the content layer: the skill's .tar.gz, the
	// same bytes as in DIST (flat, SKILL.md at the root).
	MediaTypeSkillContent = "application/vnd.agentskills.skill.content.v1.tar+gzip"
	// MediaTypeSkillMD is the second layer, SKILL.md alone, so that a
	// reader can show a skill without unpacking the archive. The
	// specification names no type for it; a descriptor's media type
	// takes no parameters, so there is no charset.
	MediaTypeSkillMD = "text/markdown"
	// ArtifactTypeCollection is the artifactType of the bundle's image
	// index, whose manifests are the skills.
	ArtifactTypeCollection = "application/vnd.agentskills.collection.v1"
	// ArtifactTypeDocuments is skillpack's own: the bundle's documents
	// (the discovery indexes, the MCP documents, checksums.txt, the
	// catalog, the build record) as layers titled with their DIST paths,
	// attached to the collection as a referrer, so that the registry
	// holds the whole bundle and `oras pull` of it writes them back.
	ArtifactTypeDocuments = "application/vnd.skillpack.bundle.documents.v1"
	// ArtifactTypeSigstoreBundle is cosign's artifactType (and layer
	// media type) for a Sigstore bundle attached as a referrer.
	ArtifactTypeSigstoreBundle = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// ArtifactTypeFolderSignature is skillpack's own: a skill folder's
	// signature (skill.oms.sig, OpenSSF Model Signing), attached to the
	// skill's manifest. Its one layer is the Sigstore bundle, of that media
	// type; the artifact type is not cosign's, because what the bundle
	// signs is a list of the folder's files, not the manifest, and cosign
	// verify would take it for a signature of the manifest that fails.
	ArtifactTypeFolderSignature = "application/vnd.skillpack.skill.folder-signature.v1"
)

// Annotation keys. The org.opencontainers.image.* keys are the image
// spec's own; io.agentskills.* are the specification's; dev.skillpack.*
// say what only a skillpack bundle has.
const (
	annTitle       = "org.opencontainers.image.title"
	annDescription = "org.opencontainers.image.description"
	annVersion     = "org.opencontainers.image.version"
	annLicenses    = "org.opencontainers.image.licenses"

	annSkillName      = "io.agentskills.skill.name"
	annSkillRef       = "io.agentskills.skill.ref"
	annCollectionName = "io.agentskills.collection.name"

	// The skill's compressor-independent content digest, and the digests
	// of its archives as DIST names them: a reader can match the
	// artifact to the bundle's indexes without fetching a layer.
	annContentDigest = "dev.skillpack.skill.content-digest"
	annTarGzDigest   = "dev.skillpack.skill.tar-gz-digest"
	annZipDigest     = "dev.skillpack.skill.zip-digest"
	annSkillMDDigest = "dev.skillpack.skill.skill-md-digest"
	// The bundle key (layout's), on the collection: two publishes of the
	// same bundle push the same index.
	annBundleKey = "dev.skillpack.bundle.key"

	// cosign's annotation saying what a Sigstore bundle holds.
	annSigstoreContent = "dev.sigstore.bundle.content"
)
