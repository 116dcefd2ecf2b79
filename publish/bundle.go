package publish

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
)

// Object is one file of a bundle as a target stores it.
type Object struct {
	// Path is the file's slash path in the bundle, which is also its key
	// under the target's prefix.
	Path   string        `json:"path"`
	Digest layout.Digest `json:"digest,omitempty"` // "" for an object found at the target to delete, or made by the run (a signature)
	Size   int64         `json:"size"`
	// ContentType and CacheControl are the headers a static host serves
	// the file with, by the rules _headers gives (layout's mime.go):
	// content-addressed archives are cached as immutable.
	ContentType  string `json:"contentType,omitempty"`
	CacheControl string `json:"cacheControl,omitempty"`
	Stage        Stage  `json:"stage"`
	// Exec is an execute bit on the bundle's file (a script of a skill or
	// plugin), which a store that keeps modes (a folder) keeps: clients
	// install from such a folder as from the bundle.
	Exec bool `json:"-"`
}

// Upload is a built bundle as publish reads it: every file its build
// record lists, as objects in the safe order.
type Upload struct {
	Dir       string        // the folder skillpack build wrote
	Key       layout.Digest // the bundle key of the record: what every document depends on
	Generator string        // the record's generator
	Objects   []Object      // every file, by stage, then by path
	Skills    []Skill       // by name
	// Carried are the versions versions.json carries beside the skills'
	// own, by name and version: a registry keeps each as its version tag.
	Carried []Skill
}

// Skill is one skill of a bundle, for targets that publish a skill as a
// unit (an OCI artifact) and label it.
type Skill struct {
	Name, Description string
	// Version is the v0.2 index's (SemVer, or "" when it gives none), and
	// License the frontmatter's.
	Version, License string
	ContentDigest    layout.Digest
	SkillMD          Object   // SKILL.md in the v0.2 tree
	TarGz, Zip       Object   // the content-addressed archives
	Signatures       []Object // the archives' signatures, when the build signed them
	// FolderSignature is the skill.oms.sig the build wrote; its Path is ""
	// when it did not (one the skill ships itself is in the archives).
	FolderSignature Object
}

// Record is the build record's object, the last one published.
func (b *Upload) Record() Object { return b.Objects[len(b.Objects)-1] }

// Open opens an object's file for reading.
func (b *Upload) Open(o Object) (*os.File, error) {
	return os.Open(b.file(o.Path))
}

func (b *Upload) file(p string) string { return filepath.Join(b.Dir, filepath.FromSlash(p)) }

// rebuild is the fix every message about a bundle that is not as its
// record says ends with.
const rebuild = "rebuild it with skillpack build, or run skillpack verify to see what changed"

// StaleError is a file of the bundle whose bytes changed since the build
// (found as they were sent, so changed since Open checked them):
// publishing again cannot mend it, rebuilding does.
type StaleError struct {
	File string // the file on disk
	Err  *bundle.ChangedError
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s changed since the build (%v); %s", e.File, e.Err, rebuild)
}

func (e *StaleError) Unwrap() error { return e.Err }

// ExitClass is the command's exit code: 2, the user's to rebuild, as
// Open's refusal of a file changed before the run began.
func (*StaleError) ExitClass() int { return 2 }

// Open reads the bundle in dir: its build record, and mcp/skills.json
// for what the skills say of themselves. Every file the record lists
// becomes an Object with the digest and size the record gives it (a
// signature, listed without one, is hashed), checked against them. A
// folder without a record, a listed file missing or of other bytes, and
// a path that is not a clean bundle path are refused, naming the file.
func Open(dir string) (*Upload, error) {
	b := &Upload{Dir: dir}
	folder, err := bundle.OpenFolder(dir)
	if err != nil {
		return nil, err
	}
	defer folder.Close()
	f, _, err := bundle.OpenMax(context.Background(), folder, layout.BuildRecord, bundle.MaxDoc)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no build record (%s): publish takes a folder that skillpack build wrote (skillpack build SKILLS -o DIST, then skillpack publish DIST TARGET)", dir, layout.BuildRecord)
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", b.file(layout.BuildRecord), err)
	}
	defer f.Close()
	known := map[string]layout.Artifact{}
	add := func(p string, d layout.Digest, size int64) {
		known[p] = layout.Artifact{Path: p, Digest: d, Size: size}
	}
	var skills []layout.RecordSkill
	var files []string
	h, err := layout.ReadRecord(f, func(s layout.RecordSkill) error {
		for _, a := range s.Artifacts() {
			add(a.Path, a.Digest, a.Size)
		}
		s.Findings, s.Files = nil, nil // lint's and reuse's business; 10,000 skills' worth is not small
		skills = append(skills, s)
		return nil
	}, func(p string) error {
		files = append(files, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w; %s", b.file(layout.BuildRecord), err, rebuild)
	}
	b.Key, b.Generator = h.Bundle, h.Generator
	for _, d := range h.Docs {
		add(d.Path, d.Digest, d.Size)
	}
	versions, err := b.versions(folder, known, add)
	if err != nil {
		return nil, err
	}
	known[layout.BuildRecord] = h.Self
	if !slices.Contains(files, layout.BuildRecord) {
		return nil, fmt.Errorf("%s does not list itself: %s", b.file(layout.BuildRecord), rebuild)
	}

	b.Objects = make([]Object, len(files))
	errs := make([]error, len(files)) // reported in the record's order
	// Hashed on a few workers: 10,000 skills have over 200,000 files.
	parallel.Each(len(files), 8, func(i int) error {
		b.Objects[i], errs[i] = b.object(folder.Root(), files[i], known)
		return nil
	})
	if err := errors.Join(firstFew(errs, 5)...); err != nil {
		return nil, err
	}
	// Stable: within a stage the objects stay in the record's path order.
	slices.SortStableFunc(b.Objects, func(x, y Object) int { return cmp.Compare(x.Stage, y.Stage) })

	byPath := make(map[string]Object, len(b.Objects))
	for _, o := range b.Objects {
		byPath[o.Path] = o
	}
	if b.Skills, err = b.skills(folder, skills, byPath); err != nil {
		return nil, err
	}
	if b.Carried, err = b.carried(versions, byPath); err != nil {
		return nil, err
	}
	return b, nil
}

// firstFew is the first n errors of errs that are not nil, and a line
// counting the rest: one bad bundle should not print a thousand lines.
func firstFew(errs []error, n int) []error {
	errs = slices.DeleteFunc(errs, func(err error) bool { return err == nil })
	if len(errs) > n {
		errs = append(errs[:n], fmt.Errorf("and %d more files like these", len(errs)-n))
	}
	return errs
}

// object checks one file the record lists and makes its Object.
func (b *Upload) object(root *os.Root, p string, known map[string]layout.Artifact) (Object, error) {
	if p != layout.BuildRecord && layout.CheckPath(p) != nil {
		return Object{}, fmt.Errorf("%s lists %q, which is not a path inside the bundle: %s", b.file(layout.BuildRecord), p, rebuild)
	}
	name := b.file(p)
	info, err := root.Lstat(filepath.FromSlash(p))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Object{}, fmt.Errorf("%s: listed in the build record but missing; %s", name, rebuild)
	case err != nil:
		return Object{}, err
	case !info.Mode().IsRegular():
		return Object{}, fmt.Errorf("%s: listed in the build record as a file but is a %s; %s", name, kindOf(info.Mode()), rebuild)
	}
	a, ok := known[p]
	if !ok {
		if !layout.IsSignature(p) {
			return Object{}, fmt.Errorf("%s: the build record lists it without a digest (is it from a newer skillpack?); %s", name, rebuild)
		}
		a.Path = p
		if a.Digest, a.Size, err = bundle.HashFile(name); err != nil {
			return Object{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	if !a.Digest.Valid() {
		return Object{}, fmt.Errorf("%s: the build record gives it the digest %q, which is not sha256: and 64 hex digits; %s", name, a.Digest, rebuild)
	}
	if info.Size() != a.Size {
		return Object{}, fmt.Errorf("%s: %d bytes, but the build record says %d: the file changed since the build; %s", name, info.Size(), a.Size, rebuild)
	}
	return Object{
		Path:         p,
		Digest:       a.Digest,
		Size:         a.Size,
		ContentType:  layout.ContentType(p),
		CacheControl: layout.DefaultCache.Control(p),
		Stage:        StageOf(p),
		Exec:         info.Mode()&0o111 != 0,
	}, nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// skills makes the bundle's skills from the record's, with what
// mcp/skills.json's frontmatter says of each and the version the v0.2
// index gives it; a skill mcp/skills.json leaves out (one MCP hosts
// refuse) has the v0.2 index's description.
func (b *Upload) skills(folder bundle.Source, rec []layout.RecordSkill, byPath map[string]Object) ([]Skill, error) {
	versions, descriptions := map[string]string{}, map[string]string{}
	if o, ok := byPath[layout.V2Index]; ok {
		idx, err := document(b, folder, o, layout.DecodeIndexV2)
		if err != nil {
			return nil, err
		}
		for _, e := range idx.Skills {
			versions[e.Name], descriptions[e.Name] = e.Version, e.Description
		}
	}
	about := map[string][]byte{}
	if o, ok := byPath[layout.MCPSkills]; ok {
		list, err := document(b, folder, o, layout.DecodeSkillsMCP)
		if err != nil {
			return nil, err
		}
		for _, s := range list {
			if p, ok := layout.ParseURI(s.URI); ok {
				about[p.Skill] = s.Frontmatter
			}
		}
	}
	out := make([]Skill, 0, len(rec))
	for _, r := range rec {
		s := Skill{Name: r.Name, ContentDigest: r.ContentDigest, Version: versions[r.Name], Description: descriptions[r.Name]}
		if !s.find(byPath, layout.SkillFile(r.Name, layout.EntryFile),
			layout.ArchivePath(r.Name, r.TarGz.Digest, layout.TarGz), layout.ArchivePath(r.Name, r.Zip.Digest, layout.Zip)) {
			return nil, fmt.Errorf("%s: skill %s: its SKILL.md or an archive is not among the files the record lists; %s", b.file(layout.BuildRecord), r.Name, rebuild)
		}
		for _, a := range []Object{s.TarGz, s.Zip} {
			if sig, ok := byPath[layout.Signature(a.Path)]; ok {
				s.Signatures = append(s.Signatures, sig)
			}
		}
		if !r.ShipsSignature() {
			s.FolderSignature = byPath[layout.FolderSignature(r.Name)]
		}
		if fm, ok := about[r.Name]; ok {
			_, s.Description, _ = layout.FrontmatterNames(fm)
			s.License = layout.FrontmatterLicense(fm)
		}
		out = append(out, s)
	}
	return out, nil
}

// find sets s's SKILL.md and archives to the objects at those paths, and
// says whether all three are there.
func (s *Skill) find(byPath map[string]Object, md, tarGz, zip string) bool {
	var ok [3]bool
	s.SkillMD, ok[0] = byPath[md]
	s.TarGz, ok[1] = byPath[tarGz]
	s.Zip, ok[2] = byPath[zip]
	return ok == [3]bool{true, true, true}
}

// document decodes a document of the bundle with dec, refusing bytes
// other than the digest the record gives it: what publish takes from a
// document must come from the bytes it uploads.
func document[T any](b *Upload, folder bundle.Source, o Object, dec func([]byte) (T, error)) (T, error) {
	var v T
	data, err := bundle.ReadDoc(context.Background(), folder, o.Path, o.Digest, "the build record", bundle.MaxDoc)
	if err != nil {
		return v, fmt.Errorf("%s: %w; %s", b.Dir, err, rebuild)
	}
	if v, err = dec(data); err != nil {
		return v, fmt.Errorf("%s: %w; %s", b.file(o.Path), err, rebuild)
	}
	return v, nil
}

// versions adds the files of every published version of a --versioned
// bundle, which its versions.json (a document of the record) names with
// their digests.
func (b *Upload) versions(folder bundle.Source, known map[string]layout.Artifact, add func(string, layout.Digest, int64)) (*layout.IndexVersions, error) {
	d, ok := known[layout.VersionsIndex]
	if !ok {
		return nil, nil
	}
	v, err := document(b, folder, Object{Path: d.Path, Digest: d.Digest}, func(data []byte) (*layout.IndexVersions, error) {
		v, err := layout.DecodeVersions(data)
		if err == nil {
			err = errors.Join(v.Check()...)
		}
		return v, err
	})
	if err != nil {
		return nil, err
	}
	for _, a := range v.Artifacts() {
		add(a.Path, a.Digest, a.Size)
	}
	return v, nil
}

// carried is every version of versions.json but the skills' own, with its
// SKILL.md and archives among the objects.
func (b *Upload) carried(v *layout.IndexVersions, byPath map[string]Object) ([]Skill, error) {
	if v == nil {
		return nil, nil
	}
	own := map[string]string{}
	for _, s := range b.Skills {
		own[s.Name] = s.Version
	}
	var out []Skill
	for _, sk := range v.Skills {
		for _, sv := range sk.Versions {
			if own[sk.Name] == sv.Version {
				continue
			}
			s := Skill{Name: sk.Name, Version: sv.Version, ContentDigest: sv.ContentDigest}
			if !s.find(byPath, layout.VersionFile(sk.Name, sv.Version, layout.EntryFile),
				layout.VersionArchive(sk.Name, sv.Version, sv.TarGz.Digest, layout.TarGz),
				layout.VersionArchive(sk.Name, sv.Version, sv.Zip.Digest, layout.Zip)) {
				return nil, fmt.Errorf("%s: skill %s's version %s: its SKILL.md or an archive is not among the files the record lists; %s", b.file(layout.BuildRecord), sk.Name, sv.Version, rebuild)
			}
			out = append(out, s)
		}
	}
	return out, nil
}
