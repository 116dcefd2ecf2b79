package layout

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/internal/jsonenc"
)

// A skill folder's signature follows OpenSSF Model Signing (OMS) v1.0
// (github.com/ossf/model-signing-spec, spec/v1.0.md): a Sigstore bundle
// whose DSSE envelope carries an in-toto Statement v1 listing every file of
// the folder with its sha256 digest. It is the one signature that survives
// unpacking: it names the files by their paths in the folder, so it can be
// checked wherever an installer put them. The Sigstore bundle is the
// signing helper's (cmd/skillpack-sign); the statement is this package's.
//
// The specification (§5, §6) sets the predicate type, the keys, the
// default exclusions, the root digest (sha256 over the resources' raw
// digests in their order), and that the signature is outside what it
// signs. Convention sets the name skill.oms.sig (NVIDIA's verified skills;
// OMS only says it SHOULD end in .sig), and the signature's own name in
// ignore_paths, as the reference tool (sigstore/model-transparency) does.

// FolderSignatureFile is the name of a skill folder's OMS signature, at
// the folder's root.
const FolderSignatureFile = "skill.oms.sig"

// The in-toto and OMS identifiers a folder signature carries (OMS v1.0
// §5.1, §6.6, §6.7).
const (
	InTotoPayloadType   = "application/vnd.in-toto+json"         // the DSSE payloadType
	StatementType       = "https://in-toto.io/Statement/v1"      // the statement's _type
	OMSPredicateType    = "https://model_signing/signature/v1.0" // its predicateType
	omsPredicateTypeOld = "https://model_signing/Digests/v0.1"   // the deprecated v0.2.0 tool's
)

// omsExcluded are the paths OMS leaves out of every signature (§6.2):
// top-level path components of the folder, each with all it holds.
var omsExcluded = []string{".git", ".gitattributes", ".github", ".gitignore"}

// Statement is an in-toto Statement v1 with the OMS predicate: what a
// folder signature signs.
type Statement struct {
	Type          string             `json:"_type"`
	Subject       []StatementSubject `json:"subject"`
	PredicateType string             `json:"predicateType"`
	Predicate     StatementPredicate `json:"predicate"`
}

// StatementSubject is the statement's one subject: the folder, by name,
// with the root digest of its resources.
type StatementSubject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// StatementPredicate is the OMS predicate: the files and how they were
// enumerated.
type StatementPredicate struct {
	Resources     []StatementResource    `json:"resources"`
	Serialization StatementSerialization `json:"serialization"`
}

// StatementResource is one file of the folder: its path inside it and the
// hex digest of its bytes.
type StatementResource struct {
	Name      string `json:"name"`
	Digest    string `json:"digest"`
	Algorithm string `json:"algorithm"`
}

// StatementSerialization says how the files were enumerated and hashed.
// ShardSize is read only to refuse shard serialization.
type StatementSerialization struct {
	Method        string   `json:"method"`
	HashType      string   `json:"hash_type"`
	ShardSize     *int64   `json:"shard_size,omitempty"`
	AllowSymlinks bool     `json:"allow_symlinks"`
	IgnorePaths   []string `json:"ignore_paths,omitempty"`
}

// InSignedScope reports whether a skill's file at path (relative to the
// skill folder) is one an OMS signature lists: all but the specification's
// exclusions (omsExcluded) and the signature itself, which the archive
// signatures cover.
func InSignedScope(path string) bool {
	return path != FolderSignatureFile && !slices.Contains(omsExcluded, firstSegment(path))
}

func firstSegment(p string) string {
	first, _, _ := strings.Cut(p, "/")
	return first
}

// StatementDoc is the statement a skill folder's signature signs: every
// file in the signed scope, sorted by path (OMS §5.2.1), with its digest;
// the root digest as the subject, named for the folder; files serialization
// without symbolic links; and the default exclusions and the signature's
// name as ignore_paths. The same files give the same bytes.
func StatementDoc(name string, files []File) ([]byte, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	fs := slices.Clone(files)
	slices.SortFunc(fs, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	res := make([]StatementResource, 0, len(fs))
	root := sha256.New()
	for i, f := range fs {
		if err := CheckPath(f.Path); err != nil {
			return nil, fmt.Errorf("skill %s: file %q: %w", name, f.Path, err)
		}
		if i > 0 && fs[i-1].Path == f.Path {
			return nil, fmt.Errorf("skill %s: file %q is listed twice", name, f.Path)
		}
		if !f.Digest.Valid() {
			return nil, fmt.Errorf("skill %s: file %q has no sha256 digest", name, f.Path)
		}
		if !InSignedScope(f.Path) {
			continue
		}
		h := f.Digest.Hex()
		raw, _ := hex.DecodeString(h)
		root.Write(raw)
		res = append(res, StatementResource{Name: f.Path, Digest: h, Algorithm: "sha256"})
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("skill %s: no file to sign", name)
	}
	ignore := append(slices.Clone(omsExcluded), FolderSignatureFile)
	slices.Sort(ignore)
	st := Statement{
		Type:          StatementType,
		Subject:       []StatementSubject{{Name: name, Digest: map[string]string{"sha256": hex.EncodeToString(root.Sum(nil))}}},
		PredicateType: OMSPredicateType,
		Predicate: StatementPredicate{
			Resources:     res,
			Serialization: StatementSerialization{Method: "files", HashType: "sha256", IgnorePaths: ignore},
		},
	}
	var b bytes.Buffer
	enc := jsonenc.New(&b, "")
	enc.SetIndent("", "") // compact, as in-toto payloads are
	if err := enc.Encode(st); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// DecodeStatement reads the payload of a folder signature, any signer's,
// and checks that skillpack can verify a folder against it: an in-toto
// Statement v1 with the OMS v1.0 predicate, one subject whose root digest
// is that of its resources in their order, files serialization with
// sha256, and at least one resource, each a clean path listed once with a
// sha256 digest. Unknown keys are ignored, as OMS asks of verifiers.
func DecodeStatement(data []byte) (*Statement, error) {
	var st Statement
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("the signed statement is not valid JSON: %w", err)
	}
	switch {
	case st.Type != StatementType:
		return nil, fmt.Errorf("the signed payload is not an in-toto Statement v1 (_type %q, want %q)", st.Type, StatementType)
	case st.PredicateType == omsPredicateTypeOld:
		return nil, fmt.Errorf("the signature uses the deprecated OMS predicate %s (model_signing 0.2), which lists files as subjects; sign the folder again with a current signer", omsPredicateTypeOld)
	case st.PredicateType != OMSPredicateType:
		return nil, fmt.Errorf("the signed statement is not an OMS folder signature: predicate type %q, want %q", st.PredicateType, OMSPredicateType)
	case len(st.Subject) != 1:
		return nil, fmt.Errorf("the signed statement has %d subjects; an OMS statement has one, the folder", len(st.Subject))
	}
	ser := st.Predicate.Serialization
	switch {
	case ser.Method == "shards" || ser.ShardSize != nil:
		return nil, errors.New("the signature hashes files in shards (OMS shard serialization), which skillpack does not verify; verify it with the model_signing tool")
	case ser.Method != "files":
		return nil, fmt.Errorf("the signature's serialization method is %q; skillpack verifies \"files\"", ser.Method)
	case ser.HashType != "sha256":
		return nil, fmt.Errorf("the signature hashes files with %q; skillpack verifies sha256 (the OMS default)", ser.HashType)
	case len(st.Predicate.Resources) == 0:
		return nil, errors.New("the signed statement lists no files")
	}
	for _, p := range ser.IgnorePaths {
		if err := CheckPath(p); err != nil {
			return nil, fmt.Errorf("the signed statement ignores %q: %w", p, err)
		}
	}
	seen := make(map[string]bool, len(st.Predicate.Resources))
	root := sha256.New()
	for _, r := range st.Predicate.Resources {
		if err := CheckPath(r.Name); err != nil {
			return nil, fmt.Errorf("the signed statement lists %q: %w", r.Name, err)
		}
		if seen[r.Name] {
			return nil, fmt.Errorf("the signed statement lists %q twice", r.Name)
		}
		seen[r.Name] = true
		if r.Algorithm != "sha256" {
			return nil, fmt.Errorf("the signed statement gives %q a %q digest, want sha256", r.Name, r.Algorithm)
		}
		raw, err := hex.DecodeString(r.Digest)
		if err != nil || len(raw) != sha256.Size || r.Digest != strings.ToLower(r.Digest) {
			return nil, fmt.Errorf("the signed statement gives %q the digest %q, not 64 lowercase hex digits", r.Name, r.Digest)
		}
		root.Write(raw)
	}
	s := st.Subject[0]
	if s.Name == "" {
		return nil, errors.New("the signed statement's subject has no name")
	}
	if got := hex.EncodeToString(root.Sum(nil)); s.Digest["sha256"] != got {
		return nil, fmt.Errorf("the signed statement is inconsistent: its files hash to the root digest %s, but its subject says %q", got, s.Digest["sha256"])
	}
	return &st, nil
}

// Files is the statement's files: path → digest.
func (st *Statement) Files() map[string]Digest {
	m := make(map[string]Digest, len(st.Predicate.Resources))
	for _, r := range st.Predicate.Resources {
		m[r.Name] = Digest("sha256:" + r.Digest)
	}
	return m
}

// Ignored reports whether a file of the folder, at path relative to it,
// is outside what the statement signs: under a default exclusion or one of
// its ignore_paths (OMS §6.2.1: paths from the root, with their subtrees).
// The signature file is outside too, but only the verifier knows its name.
func (st *Statement) Ignored(path string) bool {
	if slices.Contains(omsExcluded, firstSegment(path)) {
		return true
	}
	for _, p := range st.Predicate.Serialization.IgnorePaths {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}
