package verify

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// v2 checks the discovery v0.2.0 index, the one document every bundle
// has. Over HTTP a bundle whose index cannot be fetched cannot be checked
// at all, so that is an error rather than a problem. more is false when
// the index lists too many skills to check the rest.
func (c *checker) v2() (more bool, err error) {
	const p = layout.V2Index
	data, err := c.load(p, true)
	if errors.Is(err, bundle.ErrNotFound) && c.legacyOnly() {
		return true, nil
	}
	if err != nil {
		stopped := errors.Is(err, errStopped)
		if _, folder := c.src.(*bundle.Folder); !folder {
			if stopped {
				return false, fmt.Errorf("cannot read %s: not read: %s", c.named(p), c.stopReason())
			}
			return false, fmt.Errorf("cannot read %s: %s", c.named(p), describe(err))
		}
		if !stopped { // else run says so
			c.problem(p, "%s; every bundle has the discovery v0.2.0 index", describe(err))
		}
		return true, nil
	}
	c.docs = append(c.docs, p)
	c.rep.Checked.Indexes++
	doc, err := layout.DecodeIndexV2(data)
	// A value of the wrong type is reported, and the rest read on (doc):
	// readers drop only the entry that holds it.
	if c.empty(p, data) || !c.decoded(p, data, err) && doc == nil {
		return true, nil
	}
	var v01 []byte // a copy: isForeign reads checksums.txt, which gives data's memory back
	if doc.Schema == "" && isV01(data) {
		v01 = slices.Clone(data)
	}
	if c.foreign = c.isForeign(doc.Generator); c.foreign {
		c.rep.Foreign = cmp.Or(doc.Generator, "none")
		if v01 != nil {
			c.legacy(p, layout.SkillsDir, v01) // read as the v0.1 index clients take it for
			return true, nil
		}
	}
	if c.tooMany(p, len(doc.Skills)) {
		return false, nil
	}
	switch {
	case doc.Schema == "":
		c.problem(p, "has no \"$schema\"; set it to %q, or readers ignore the whole index", layout.Schema)
	case doc.Schema != layout.Schema:
		c.problem(p, "\"$schema\" is %q; readers accept exactly %q and ignore the whole index otherwise", doc.Schema, layout.Schema)
	}
	if doc.Skills == nil {
		c.problem(p, "has no \"skills\" array")
	}
	for i, e := range doc.Skills {
		label := fmt.Sprintf("skills[%d] %q", i, clipped(e.Name))
		ok := true
		bad := func(format string, args ...any) {
			c.problem(p, label+": "+format+"; readers drop this entry", args...)
			ok = false
		}
		if err := layout.CheckName(e.Name); err != nil {
			bad("%v", err)
		} else if c.skills[e.Name] != nil {
			bad("a second entry with this name")
		}
		if e.Type != layout.TypeSkillMD && e.Type != layout.TypeArchive {
			bad("type is %q; use %q or %q", e.Type, layout.TypeSkillMD, layout.TypeArchive)
		}
		if err := layout.CheckDescription(e.Description); err != nil {
			bad("%v", err)
		}
		if e.URL == "" {
			bad("no url")
		}
		if !e.Digest.Valid() {
			bad("digest %q is not \"sha256:\" and 64 lowercase hex digits", e.Digest)
		}
		if !ok {
			continue
		}
		loc, err := c.locate(e.URL)
		switch {
		case c.notInFolder(e.URL, loc, err):
			c.rep.Warnings = append(c.rep.Warnings, Problem{p, fmt.Sprintf("%s: url %q is not in the folder, so it was not checked; verify the URL the site is served at to fetch it", label, clipped(e.URL))})
			continue
		case err != nil:
			c.problem(p, "%s: %v", label, err)
			continue
		}
		s := &skillModel{name: e.Name, typ: e.Type, description: e.Description, digest: e.Digest,
			contentDigest: e.ContentDigest, version: e.Pin().Version, loc: loc, served: map[string]*sum{}}
		c.skills[e.Name] = s
		c.names = append(c.names, e.Name)
		if e.Type == layout.TypeArchive {
			if layout.ArchiveFormat(loc) == "" && !c.foreign { // clients go by the bytes too
				c.problem(p, "%s: type archive, but url %q is not a .tar.gz or .zip", label, e.URL)
				continue
			}
			c.archive(loc, e.Name, p, e.Digest, -1)
		} else {
			c.expect(loc, p, e.Digest, -1)
			if c.foreign {
				c.skillMDs[loc] = true
			}
		}
	}
	slices.Sort(c.names)
	return true, nil
}

// empty reports whether the document at p is empty, as a problem: no
// document the build writes is, so it was emptied or cut short.
func (c *checker) empty(p string, data []byte) bool {
	if len(data) > 0 {
		return false
	}
	c.problem(p, "is empty (0 bytes); skillpack never writes it so: it was emptied or cut short")
	return true
}

// tooMany reports whether the index at p lists more skills than
// Options.MaxSkills, as a problem; such an index is not read further, so
// that a hostile one cannot make the check fetch without end.
func (c *checker) tooMany(p string, n int) bool {
	if n <= c.o.MaxSkills {
		return false
	}
	c.problem(p, "lists %d skills, more than the limit of %d (--max-skills); not checked further. Pass --max-skills %d to check a bundle this large", n, c.o.MaxSkills, n)
	return true
}

// missing reports each skill of the v2 index that the document at p does
// not list (seen), and why it must.
func (c *checker) missing(p string, seen map[string]bool, why string) {
	for _, n := range c.names {
		if !seen[n] {
			c.problem(p, "skill %q of %s is missing; %s", n, layout.V2Index, why)
		}
	}
}

// archive records a claim about the archive at loc, or, from "", only
// that it is skill's (checksums.txt's lines are held to it apart).
func (c *checker) archive(loc, skill, from string, digest layout.Digest, size int64) *archiveRef {
	a := c.archives[loc]
	if a == nil {
		a = &archiveRef{loc: loc, skill: skill, ext: layout.ArchiveFormat(loc)}
		c.archives[loc] = a
		if s := c.skills[skill]; s != nil {
			s.archives = append(s.archives, a)
		}
	} else if a.skill != skill {
		c.problem(loc, "%s names it as an archive of skill %q, another document of skill %q", from, skill, a.skill)
	}
	if from != "" {
		a.claims = append(a.claims, claim{loc, from, digest, size})
	}
	return a
}

// optionalIndex reads and decodes with decode an index the bundle may
// leave out, counting it as checked, and checks that it lists no more
// skills than the limit (skills gives their number); ok false means there
// is nothing more to check (absent, or a problem already reported).
func optionalIndex[T any](c *checker, p string, decode func([]byte) (T, error), skills func(T) int) (doc T, ok bool) {
	data := c.read(p, true)
	if data == nil {
		return doc, false
	}
	c.docs = append(c.docs, p)
	c.rep.Checked.Indexes++
	if c.empty(p, data) {
		return doc, false
	}
	doc, err := decode(data)
	if !c.decoded(p, data, err) {
		return doc, false
	}
	return doc, skills == nil || !c.tooMany(p, skills(doc))
}

// v1Index checks the legacy discovery v0.1.0 index, if there is one.
func (c *checker) v1Index() {
	const p = layout.V1Index
	doc, ok := optionalIndex(c, p, layout.DecodeIndexV1, func(d *layout.IndexV1) int { return len(d.Skills) })
	if !ok {
		return
	}
	c.v1 = map[string]*layout.EntryV1{}
	const whole = "; the skills CLI rejects the whole legacy index for one bad entry"
	seen := map[string]bool{}
	for i, e := range doc.Skills {
		label := fmt.Sprintf("skills[%d] %q", i, clipped(e.Name))
		if err := layout.CheckName(e.Name); err != nil {
			c.problem(p, "%s: %v%s", label, err, whole)
			continue
		}
		if seen[e.Name] {
			c.problem(p, "%s: a second entry with this name%s", label, whole)
			continue
		}
		seen[e.Name] = true
		c.v1[e.Name] = &doc.Skills[i]
		s := c.skills[e.Name]
		if s == nil {
			c.problem(p, "%s: not in %s; the two indexes must list the same skills", label, layout.V2Index)
			continue
		}
		if e.Description != s.description {
			c.problem(p, "%s: description differs from the one in %s", label, layout.V2Index)
		}
		if len(e.Files) == 0 || e.Files[0] != layout.EntryFile {
			c.problem(p, "%s: files must start with %s%s", label, layout.EntryFile, whole)
		}
		for _, f := range e.Files {
			if err := layout.CheckLegacyPath(f); err != nil {
				c.problem(p, "%s: file %q: %v%s", label, f, err, whole)
			}
		}
	}
}

// mcpSkills checks mcp/skills.json, the skills of an MCP skills/list.
func (c *checker) mcpSkills() {
	const p = layout.MCPSkills
	doc, ok := optionalIndex(c, p, layout.DecodeSkillsMCP, func(d []layout.SkillMCP) int { return len(d) })
	if !ok {
		return
	}
	seen := map[string]bool{}
	for i, e := range doc {
		label := fmt.Sprintf("[%d] %q", i, clipped(e.URI))
		u, ok := layout.ParseURI(e.URI)
		if !ok || u.Kind != layout.KindFile || u.File != layout.EntryFile {
			c.problem(p, "%s: uri must be skill://<name>/%s", label, layout.EntryFile)
			continue
		}
		name := u.Skill
		if seen[name] {
			c.problem(p, "%s: a second entry for this skill", label)
			continue
		}
		seen[name] = true
		c.fmByURI[e.URI] = e.Frontmatter
		var fm map[string]any
		if err := json.Unmarshal(e.Frontmatter, &fm); err != nil || fm == nil {
			c.problem(p, "%s: frontmatter is not a JSON object", label)
		} else if fm["name"] != name {
			c.problem(p, "%s: frontmatter name is %q, but the uri names %q; MCP hosts require them equal", label, fm["name"], name)
		}
		s := c.skills[name]
		if s == nil {
			c.problem(p, "%s: skill %q is not in %s; the indexes must list the same skills", label, name, layout.V2Index)
			continue
		}
		if fm != nil && fm["description"] != s.description {
			c.problem(p, "%s: frontmatter description differs from the one in %s", label, layout.V2Index)
		}
		s.listed = map[string]claim{}
		for _, r := range e.Resources {
			ru, ok := layout.ParseURI(r.URI)
			switch {
			case !ok || ru.Kind != layout.KindFile || ru.Skill != name:
				c.problem(p, "%s: resource %q is not skill://%s/<path>", label, r.URI, name)
				continue
			case !r.Digest.Valid() || r.Size == nil || *r.Size < 0:
				c.problem(p, "%s: resource %q needs a digest (\"sha256:\" and 64 lowercase hex digits) and a size", label, r.URI)
				continue
			case s.listed[ru.File] != claim{}:
				c.problem(p, "%s: resource %q is listed twice", label, r.URI)
				continue
			}
			s.listed[ru.File] = claim{digest: r.Digest, size: *r.Size}
			s.files = append(s.files, ru.File)
		}
		s.filesFrom = p
		if _, ok := s.listed[layout.EntryFile]; !ok {
			c.problem(p, "%s: resources do not include %s; they must list every file of the skill", label, layout.EntryFile)
		}
	}
	c.mcpListed[p] = seen // checkMCP says which skills it must list
}

// mcpIndex checks mcp/index.json, the legacy skill://index.json body.
func (c *checker) mcpIndex() {
	const p = layout.MCPIndex
	doc, ok := optionalIndex(c, p, layout.DecodeIndexMCP, func(d *layout.IndexMCP) int { return len(d.Skills) })
	if !ok {
		return
	}
	seen := map[string]bool{}
	for i, e := range doc.Skills {
		label := fmt.Sprintf("skills[%d] %q", i, clipped(e.Name))
		if err := layout.CheckName(e.Name); err != nil || e.URL == "" {
			c.problem(p, "%s: needs a valid name and a url; mcpc drops entries without them", label)
			continue
		}
		if seen[e.Name] {
			c.problem(p, "%s: a second entry with this name", label)
			continue
		}
		seen[e.Name] = true
		s := c.skills[e.Name]
		if s == nil {
			c.problem(p, "%s: not in %s; the indexes must list the same skills", label, layout.V2Index)
			continue
		}
		uri := layout.SkillURI(e.Name, layout.EntryFile)
		if e.URL != uri {
			c.problem(p, "%s: url is %q, want %q", label, e.URL, uri)
		}
		if e.Description != s.description {
			c.problem(p, "%s: description differs from the one in %s", label, layout.V2Index)
		}
		if e.ContentDigest != s.contentDigest {
			c.problem(p, "%s: contentDigest %s differs from %s in %s", label, e.ContentDigest, s.contentDigest, layout.V2Index)
		}
		if fm, ok := c.fmByURI[uri]; ok && !sameJSON(fm, e.Frontmatter) {
			c.problem(p, "%s: frontmatter differs from the one in %s", label, layout.MCPSkills)
		}
		if e.Digest.Valid() {
			c.expect(layout.SkillFile(e.Name, layout.EntryFile), p, e.Digest, -1)
		} else {
			c.problem(p, "%s: digest %q is not \"sha256:\" and 64 lowercase hex digits", label, e.Digest)
		}
		exts := map[string]bool{}
		for _, a := range e.Archives {
			au, ok := layout.ParseURI(a.URL)
			if !ok || au.Kind != layout.KindArchive || !a.Digest.Valid() {
				c.problem(p, "%s: archive %q needs a url skill://<archive name> and a digest", label, a.URL)
				continue
			}
			if want := layout.MimeType(au.String()); a.MimeType != want {
				c.problem(p, "%s: archive %q has mimeType %q, want %q", label, a.URL, a.MimeType, want)
			}
			ref := c.archive(au.String(), e.Name, p, a.Digest, -1)
			exts[ref.ext] = true
			if ref.ext == layout.TarGz && s.typ == layout.TypeArchive && a.Digest != s.digest {
				c.problem(p, "%s: archive %s differs from the one in %s (%s)", label, a.URL, layout.V2Index, s.loc)
			}
		}
		if !exts[layout.TarGz] || !exts[layout.Zip] {
			c.problem(p, "%s: archives must list the skill's .tar.gz and .zip", label)
		}
	}
	c.mcpListed[p] = seen // checkMCP says which skills it must list
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

// mcpResources checks mcp/resources.json: every URI maps to the path the
// layout gives it, and every path holds the bytes its digest and size say.
func (c *checker) mcpResources() {
	const p = layout.MCPResources
	doc, ok := optionalIndex(c, p, layout.DecodeResources, nil)
	if !ok {
		return
	}
	have := map[string]bool{}
	listed := map[string]bool{} // the skills with a resource
	c.mcpListed[p] = listed
	for i, r := range doc {
		label := fmt.Sprintf("[%d] %q", i, clipped(r.URI))
		switch err := layout.CheckPath(r.Path); {
		case err != nil:
			c.problem(p, "%s: path %q: %v", label, r.Path, err)
			continue
		case !r.Digest.Valid():
			c.problem(p, "%s: digest %q is not \"sha256:\" and 64 lowercase hex digits", label, r.Digest)
			continue
		case r.Size == nil || *r.Size < 0:
			c.problem(p, "%s: needs a size, of 0 bytes or more", label)
			continue
		case have[r.URI]:
			c.problem(p, "%s: listed twice", label)
			continue
		}
		have[r.URI] = true
		if want := layout.MimeType(r.Path); r.MimeType != want {
			c.problem(p, "%s: mimeType is %q, want %q", label, r.MimeType, want)
		}
		u, ok := layout.ParseURI(r.URI)
		if !ok {
			c.problem(p, "%s: not the URI of a skill's file, of an archive or %s", label, layout.IndexURI)
			continue
		}
		if s := c.skills[u.Skill]; u.Kind == layout.KindFile && s != nil && s.listed != nil {
			if _, ok := s.listed[u.File]; !ok {
				c.problem(p, "%s: not a file of skill %q in %s", label, u.Skill, layout.MCPSkills)
			}
		}
		if u.Skill != "" {
			listed[u.Skill] = true
		}
		if want := u.String(); r.Path != want {
			c.problem(p, "%s: path is %q, want %q", label, r.Path, want)
			continue
		}
		if u.Kind == layout.KindArchive {
			c.archive(r.Path, u.Skill, p, r.Digest, *r.Size)
			continue
		}
		c.expect(r.Path, p, r.Digest, *r.Size)
	}
	if !have[layout.IndexURI] {
		c.problem(p, "no resource for %s", layout.IndexURI)
	}
	// In order, for the same report every run.
	for _, n := range c.names {
		s := c.skills[n]
		for _, path := range slices.Sorted(maps.Keys(s.listed)) {
			if uri := layout.SkillURI(s.name, path); !have[uri] {
				c.problem(p, "no resource for %s, a file of skill %q", uri, s.name)
			}
		}
	}
	for _, loc := range slices.Sorted(maps.Keys(c.archives)) {
		a := c.archives[loc]
		if strings.Contains(a.loc, "://") {
			continue // served elsewhere, under a base URL
		}
		if skills, ok := c.mcpListed[layout.MCPSkills]; ok && !skills[a.skill] {
			continue // a skill MCP hosts refuse, if checkMCP agrees: no resource of it
		}
		ap, ok := layout.ParsePath(a.loc)
		switch {
		case !ok || ap.Kind != layout.KindArchive:
			c.problem(p, "no resource for %s, an archive of skill %q: it is not where an archive is served, %s/<name>-<hex>.<ext>", a.loc, a.skill, layout.SkillsDir)
		case !have[ap.URI()]:
			c.problem(p, "no resource for %s, an archive of skill %q", ap.URI(), a.skill)
		}
	}
}

// checksumLines is checksums.txt, read and parsed once; ok is false
// without one.
func (c *checker) checksumLines() (sums []layout.Sum, ok bool, err error) {
	if c.sumLines == nil {
		c.sumLines = &parsedSums{}
		const p = layout.Checksums
		if data := c.read(p, true); data != nil && !c.empty(p, data) {
			c.sumLines.sums, c.sumLines.err = layout.ParseChecksums(data)
			c.sumLines.ok = true
		}
	}
	return c.sumLines.sums, c.sumLines.ok, c.sumLines.err
}

// ours reports whether an optional document at p is the bundle's: unless
// checksums.txt, which lists every document the build wrote, leaves it
// out. A site may keep a file of its own there (its AI Catalog), which
// publish leaves alone and verify must too.
func (c *checker) ours(p string) bool {
	sums, ok, _ := c.checksumLines()
	return !ok || slices.ContainsFunc(sums, func(s layout.Sum) bool { return s.Path == p })
}

// checksums checks every line of checksums.txt and that it lists every
// archive and index.
func (c *checker) checksums() {
	const p = layout.Checksums
	sums, ok, err := c.checksumLines()
	if !ok {
		return
	}
	var lines interface{ Unwrap() []error }
	if errors.As(err, &lines) {
		for _, err := range lines.Unwrap() {
			if le := (*layout.LineError)(nil); errors.As(err, &le) {
				c.problem(p, "line %d: %v", le.Line, le.Err)
			}
		}
	}
	listed := map[string]bool{}
	for i, s := range sums {
		if s.Path == "" {
			continue // reported above
		}
		listed[s.Path] = true
		c.expect(s.Path, fmt.Sprintf("%s line %d", p, i+1), s.Digest, -1)
	}
	for _, loc := range slices.Concat(c.docs, slices.Sorted(maps.Keys(c.archives)), c.summed) {
		if !listed[loc] && !strings.Contains(loc, "://") {
			c.problem(p, "does not list %s", loc)
		}
	}
}
