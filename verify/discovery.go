package verify

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// llmsTxt checks llms.txt, if the bundle has one: its Agent Skills
// section lists every skill of the v0.2 index once, linked to its SKILL.md
// with its description, and nothing else. Over HTTP one with neither the
// section nor a marker is the site's own and left alone (checksums.txt
// still holds the bundle's to its digest); in a folder it is the bundle's.
func (c *checker) llmsTxt() {
	const p = layout.LLMsTxt
	data := c.read(p, true)
	if data == nil {
		return
	}
	_, folder := c.src.(*bundle.Folder)
	d, err := layout.DecodeLLMsTxt(data)
	if err != nil {
		if !folder && !bytes.Contains(data, []byte("skillpack:agent-skills")) {
			return // not text, and not marked as the bundle's
		}
		var le *layout.LineError
		if errors.As(err, &le) {
			c.problem(p, "line %d: %v", le.Line, le.Err)
		} else {
			c.problem(p, "%v", err)
		}
		c.docs = append(c.docs, p)
		return
	}
	secs := d.Section(layout.LLMsSectionName)
	if len(secs) == 0 && !folder && d.Start == 0 {
		return // the site's, not the bundle's
	}
	c.docs = append(c.docs, p)
	c.rep.Checked.Indexes++
	if d.Start != 0 {
		c.problem(p, "line %d: %s marks where the section goes in the site's llms.txt; the build writes the section in its place", d.Start, layout.LLMsStart)
	}
	switch {
	case len(secs) == 0:
		c.problem(p, "has no %q section; the build writes one that lists every skill", "## "+layout.LLMsSectionName)
		return
	case len(secs) > 1:
		c.problem(p, "line %d: a second %q section (the first is on line %d); readers would see two lists", secs[1].Line, "## "+layout.LLMsSectionName, secs[0].Line)
	}
	sec := secs[0]
	for _, n := range sec.Other {
		c.problem(p, "line %d: not a skill's line; the section holds only \"- [name](url): description\" lines", n)
	}
	seen := map[string]bool{}
	for _, l := range sec.Links {
		label := fmt.Sprintf("line %d %q", l.Line, clipped(l.Name))
		s := c.skills[l.Name]
		switch {
		case layout.CheckName(l.Name) != nil || s == nil:
			c.problem(p, "%s: not a skill of %s", label, layout.V2Index)
			continue
		case seen[l.Name]:
			c.problem(p, "%s: listed twice", label)
			continue
		}
		seen[l.Name] = true
		if want := layout.LLMsDescription(s.description); l.Description != want {
			c.problem(p, "%s: description %q differs from the one in %s (%q on one line)", label, l.Description, layout.V2Index, want)
		}
		// Relative urls are relative to llms.txt, at the bundle's root:
		// two folders above the index that locate resolves against.
		ref := l.URL
		if u, err := url.Parse(ref); err == nil && !u.IsAbs() && !strings.HasPrefix(ref, "/") {
			ref = "../../" + ref
		}
		// The file itself is the skill's SKILL.md, which the skill's
		// checks read; llms.txt gives no digest of it.
		if _, pp, ok := c.skillRef(ref); !ok || pp.Kind != layout.KindFile || pp.Legacy || pp.Skill != l.Name || pp.File != layout.EntryFile {
			c.problem(p, "%s: url %q is not the skill's %s (%s)", label, l.URL, layout.EntryFile, layout.SkillFile(l.Name, layout.EntryFile))
		}
	}
	c.missing(p, seen, "llms.txt lists every skill")
}

// skillRef locates a url a document gives for a skill's file or archive,
// and takes apart the dist path it leads to (under a base URL on another
// origin, by its place in the layout, as ParseIndexURL does).
func (c *checker) skillRef(ref string) (loc string, p layout.Path, ok bool) {
	loc, err := c.locate(ref)
	if err != nil {
		return "", layout.Path{}, false
	}
	if strings.Contains(loc, "://") {
		p, ok = layout.ParseIndexURL(loc)
	} else {
		p, ok = layout.ParsePath(loc)
	}
	return loc, p, ok
}

// aiCatalog checks .well-known/ai-catalog.json, if the bundle has one:
// three entries per skill of the v0.2 index (SKILL.md, .tar.gz, .zip),
// each with the identifier, type, name, description and version the build
// gives it and a url and digest that lead to the bundle's bytes, and in a
// v0.9 catalog its Trust Manifest (aiTrust). Builds before v0.9 wrote
// specVersion "1.0": its own identifiers, no Trust Manifests.
func (c *checker) aiCatalog() {
	const p = layout.AICatalog
	if !c.ours(p) {
		return // the site's own catalog (see ours)
	}
	doc, ok := optionalIndex(c, p, layout.DecodeAICatalog, func(d *layout.AICatalogDocument) int { return len(d.Entries) / 3 })
	if !ok {
		return
	}
	parse, grammar := layout.ParseAICatalogIdentifier, "urn:air:<host>:<name>/<md|gzip|zip>:skill"
	switch doc.SpecVersion {
	case layout.AICatalogVersion:
	case layout.AICatalogVersion1:
		parse, grammar = layout.ParseAICatalogIdentifier1, "urn:air:<host>:skill:<md|gzip|zip>:<name>"
	default:
		c.problem(p, "specVersion is %q; the build writes %q (and wrote %q before v0.9)", doc.SpecVersion, layout.AICatalogVersion, layout.AICatalogVersion1)
	}
	if doc.Entries == nil {
		c.problem(p, "has no \"entries\" array")
	}
	seen := map[string]bool{}
	forms := map[string][]string{} // skill → forms listed
	publisher := ""
	for i, e := range doc.Entries {
		label := fmt.Sprintf("entries[%d] %q", i, clipped(e.Identifier))
		pub, form, name, ok := parse(e.Identifier)
		if !ok {
			c.problem(p, "%s: identifier is not %s", label, grammar)
			continue
		}
		if seen[e.Identifier] {
			c.problem(p, "%s: listed twice; identifiers are unique in a catalog", label)
			continue
		}
		seen[e.Identifier] = true
		if publisher == "" {
			publisher = pub
		} else if pub != publisher {
			c.problem(p, "%s: publisher %q, but entries before it have %q", label, pub, publisher)
		}
		s := c.skills[name]
		if s == nil {
			c.problem(p, "%s: skill %q is not in %s", label, name, layout.V2Index)
			continue
		}
		forms[name] = append(forms[name], form)
		if want := layout.AICatalogMedia(form); e.Type != want {
			c.problem(p, "%s: type is %q, want %q", label, e.Type, want)
		}
		if e.DisplayName != name {
			c.problem(p, "%s: displayName is %q, want the skill's name", label, e.DisplayName)
		}
		if e.Description != s.description {
			c.problem(p, "%s: description differs from the one in %s", label, layout.V2Index)
		}
		if e.Version != s.version {
			c.problem(p, "%s: version is %q, but %s says %q", label, e.Version, layout.V2Index, s.version)
		}
		if !e.Digest.Valid() {
			c.problem(p, "%s: digest %q is not \"sha256:\" and 64 lowercase hex digits", label, e.Digest)
			continue
		}
		u, err := url.Parse(e.URL)
		if err != nil || !u.IsAbs() {
			c.problem(p, "%s: url %q is not an absolute URL", label, e.URL)
			continue
		}
		if h := strings.ToLower(u.Hostname()); h != pub {
			c.problem(p, "%s: the identifier names %q, but the url is on %q", label, pub, h)
		}
		loc, pp, ok := c.skillRef(e.URL)
		switch {
		case !ok || pp.Skill != name || pp.Legacy:
			ok = false
		case form == "md" && pp.Kind == layout.KindFile && pp.File == layout.EntryFile:
			c.expect(loc, p, e.Digest, -1)
		case form != "md" && pp.Kind == layout.KindArchive && (form == "gzip") == (pp.Format == layout.TarGz):
			c.archive(loc, name, p, e.Digest, -1)
		default:
			ok = false
		}
		if !ok {
			c.problem(p, "%s: url %q is not where the skill's %s is", label, e.URL, e.Type)
		} else if doc.SpecVersion == layout.AICatalogVersion {
			c.aiTrust(label, e, form, loc)
		}
	}
	for _, n := range c.names {
		if got := forms[n]; len(got) == 0 {
			c.problem(p, "skill %q of %s is missing; the catalog lists every skill", n, layout.V2Index)
		} else if slices.Sort(got); !slices.Equal(got, []string{"gzip", "md", "zip"}) {
			c.problem(p, "skill %q has entries %v; the catalog lists its %s, .tar.gz and .zip once each", n, got, layout.EntryFile)
		}
	}
}

// aiTrust checks the Trust Manifest of a v0.9 catalog's entry e, of the
// form form, whose url leads to loc, as layout.AICatalogManifest writes
// it: its subject the entry's release, its contributor the base URL the
// url is under, each attestation a file that speaks for the artifact
// (checksums.txt for an archive; the archive's Sigstore bundle or the
// folder's OMS signature, which the bundle must hold). A bundle signed
// after its build holds signatures its catalog does not name.
func (c *checker) aiTrust(label string, e layout.AICatalogEntry, form, loc string) {
	const p = layout.AICatalog
	switch n := len(e.TrustManifests); {
	case n == 0 && form != "md":
		c.problem(p, "%s: has no Trust Manifest; the build gives each archive one that points at %s", label, layout.Checksums)
		return
	case n > 1:
		c.problem(p, "%s: has %d Trust Manifests; the build writes one", label, n)
	}
	for i, m := range e.TrustManifests {
		at := fmt.Sprintf("%s: trustManifests[%d]", label, i)
		base := strings.TrimRight(m.Contributor, "/") + "/"
		u, err := url.Parse(m.Contributor)
		if err != nil || !u.IsAbs() || !strings.HasPrefix(e.URL, base) {
			c.problem(p, "%s: contributor %q is not the base URL the entry's url is under", at, m.Contributor)
			continue
		}
		if s := m.Subject; s == nil {
			c.problem(p, "%s: has no subject; the build names the entry's release there", at)
		} else if *s != (layout.AICatalogSubject{Identifier: e.Identifier, Type: e.Type, URL: e.URL, Digest: e.Digest, Version: e.Version}) {
			c.problem(p, "%s: subject %+v is not the entry's identifier, type, url, digest and version", at, *s)
		}
		if len(m.Attestations) == 0 {
			c.problem(p, "%s: points at no evidence; the specification omits such a manifest", at)
		}
		artifact := strings.TrimPrefix(e.URL, base)
		for j, a := range m.Attestations {
			var want, held string // the dist path a.URI must name; where the bundle holds it
			switch {
			case a.Type == layout.AttestChecksums && form != "md":
				want = layout.Checksums
			case a.Type == layout.AttestSigstore && form != "md":
				want, held = layout.Signature(artifact), layout.Signature(loc)
			case a.Type == layout.AttestOMSSignature && form == "md":
				want = strings.TrimSuffix(artifact, layout.EntryFile) + layout.FolderSignatureFile
				held = strings.TrimSuffix(loc, layout.EntryFile) + layout.FolderSignatureFile
			default:
				c.problem(p, "%s: attestations[%d] has type %q, which the build does not write for %s", at, j, a.Type, e.Type)
				continue
			}
			if a.URI != base+want {
				c.problem(p, "%s: attestations[%d] (%s) points at %q, want %q", at, j, a.Type, a.URI, base+want)
				continue
			}
			if held == "" {
				continue
			}
			if s := c.hash(held); s == nil || s.err != nil && !errors.Is(s.err, bundle.ErrNotHeld) && !errors.Is(s.err, errStopped) {
				c.problem(p, "%s: attestations[%d] names %s, which the bundle does not hold", at, j, want)
			}
		}
	}
}

// locate maps an index entry's url, relative or absolute, to a location:
// resolved against the v0.2 index, two folders below the bundle root. A
// folder or a store cannot know the base URL it is served at (a
// --base-url build's): there an absolute url is mapped by its place in
// the layout.
func (c *checker) locate(ref string) (string, error) {
	index := fakeIndex
	site, ok := c.src.(*bundle.Site)
	if ok {
		index = site.Index()
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("url %q is not a valid URL", ref)
	}
	abs := index.ResolveReference(r)
	if abs.Scheme != "http" && abs.Scheme != "https" {
		return "", fmt.Errorf("url %q is not an http or https URL", ref)
	}
	base := strings.TrimSuffix(index.Path, layout.V2Index)
	if abs.Scheme == index.Scheme && abs.Host == index.Host && strings.HasPrefix(abs.Path, base) && abs.RawQuery == "" {
		return strings.TrimPrefix(abs.Path, base), nil
	}
	if site != nil {
		return abs.String(), nil
	}
	p, ok := layout.ParseIndexURL(ref)
	if !ok {
		return "", fmt.Errorf("url %q is %w", ref, errOutside)
	}
	return p.String(), nil
}

// errOutside is a url a folder does not hold.
var errOutside = fmt.Errorf("outside the bundle (not a skill's file or archive under /%s/)", layout.SkillsDir)

// fakeIndex is where a folder's v0.2 index would be served, so that its
// relative urls resolve the same way in both sources.
var fakeIndex = &url.URL{Scheme: "http", Host: "dist.invalid", Path: "/" + layout.V2Index}
