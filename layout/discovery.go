package layout

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The discovery documents beyond the indexes: llms.txt (llmstxt.org), at
// the root for language models to read, and the AI Catalog (the
// Agent-Card/ai-catalog specification) at /.well-known/ai-catalog.json.
// Each is written only when Options asks for it, so that a bundle without
// them is, byte for byte, what it was before they existed.

// LLMsSectionName names the H2 section of llms.txt that lists the skills.
const LLMsSectionName = "Agent Skills"

// The markers, each alone on its line, between which the build writes its
// section into a copy of a site's llms.txt (LLMsOptions.Base): HTML
// comments, which Markdown renders as nothing. The copy has the section in
// their stead: the reference parser refuses a section's non-link lines.
const (
	LLMsStart = "<!-- skillpack:agent-skills:start -->"
	LLMsEnd   = "<!-- skillpack:agent-skills:end -->"
)

// LLMsOptions says which llms.txt a bundle gets.
type LLMsOptions struct {
	// Base is the site's own llms.txt, never written itself: the bundle's
	// is a copy with the section in place of the markers and what is
	// between them, or at its end when it has none. Nil: an llms.txt of
	// the bundle's own.
	Base []byte
	Name string // where Base was read from, for errors
}

// The llms.txt proposal's format, as its reference parser (llms_txt)
// reads it: an H1, an optional blockquote, then H2 sections of
// "- [name](url): notes" lines, one a line.
var (
	h2Line   = regexp.MustCompile(`^ {0,3}##(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	linkLine = regexp.MustCompile(`^ {0,3}-[ \t]*\[([^\]]+)\]\(([^)]+)\)(?::[ \t]*(.*))?$`)
)

// LLMsDoc is an llms.txt as DecodeLLMsTxt reads it.
type LLMsDoc struct {
	Title   string // the H1, "" if there is none
	Summary string // the blockquote after it
	// Start and End are the lines of the markers, 0 when there are none
	// (as in the bundle's llms.txt).
	Start, End int
	Sections   []LLMsSection
}

// LLMsSection is one H2 section.
type LLMsSection struct {
	Name  string
	Line  int // of its heading
	Links []LLMsLink
	// Other are the lines of the section that are neither blank, a link
	// nor a marker: the reference parser fails on them.
	Other []int
}

// LLMsLink is one "- [name](url): description" line.
type LLMsLink struct {
	Name, URL, Description string
	Line                   int
}

// Section returns the sections named name, in any case, in file order.
func (d *LLMsDoc) Section(name string) []LLMsSection {
	return slices.DeleteFunc(slices.Clone(d.Sections), func(s LLMsSection) bool { return !strings.EqualFold(s.Name, name) })
}

// DecodeLLMsTxt reads an llms.txt. It fails (with a *LineError) only on
// bytes that are not UTF-8 text and on markers that are not one pair in
// order, each alone on its line; everything else is for a reader to judge.
func DecodeLLMsTxt(data []byte) (*LLMsDoc, error) {
	m, err := scanLLMs(LLMsTxt, data)
	if err != nil {
		return nil, err
	}
	d := &LLMsDoc{Start: m.start, End: m.end}
	var sec *LLMsSection
	summary := true // the next non-blank line after the title may be the summary
	eachLine(data, func(n, _, _ int, line []byte) error {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 || n == m.start || n == m.end {
			return nil
		}
		if g := h2Line.FindSubmatch(line); g != nil {
			d.Sections = append(d.Sections, LLMsSection{Name: string(bytes.TrimSpace(g[1])), Line: n})
			sec = &d.Sections[len(d.Sections)-1]
			return nil
		}
		if sec != nil {
			if g := linkLine.FindSubmatch(line); g != nil {
				sec.Links = append(sec.Links, LLMsLink{Name: string(g[1]), URL: string(g[2]), Description: string(bytes.TrimRightFunc(g[3], unicode.IsSpace)), Line: n})
			} else {
				sec.Other = append(sec.Other, n)
			}
			return nil
		}
		switch {
		case d.Title == "" && bytes.HasPrefix(trimmed, []byte("# ")):
			d.Title = string(bytes.TrimSpace(trimmed[2:]))
			return nil
		case d.Title != "" && summary && bytes.HasPrefix(trimmed, []byte(">")):
			d.Summary = string(bytes.TrimSpace(trimmed[1:]))
		}
		summary = false
		return nil
	})
	return d, nil
}

// eachLine calls f for each line of data, 1-based, with the offsets of
// its first byte and of the next line's, and its bytes without "\n" or
// "\r\n" (a slice of data, never a copy). A final newline starts no line.
func eachLine(data []byte, f func(n, off, next int, line []byte) error) error {
	for off, n := 0, 1; off < len(data); n++ {
		end, next := len(data), len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end, next = off+i, off+i+1
		}
		if err := f(n, off, next, bytes.TrimSuffix(data[off:end], []byte("\r"))); err != nil {
			return err
		}
		off = next
	}
	return nil
}

// llmsMarkers is where the markers are in an llms.txt.
type llmsMarkers struct {
	start, end int    // lines, 1-based; 0: none
	from, to   int    // the section replaces data[from:to], the marker lines included
	eol        string // the file's line ending, "\n" or "\r\n"
}

// CheckLLMsBase checks the site's llms.txt (LLMsOptions.Base), read from
// the file name: UTF-8 text with at most one pair of markers, in order,
// each alone on its line; no "## Agent Skills" section of its own outside
// them (the skills listed twice); no text between the end marker and the
// next heading (read as part of the section). Errors are *LineError with
// the fix. Plan checks it again.
func CheckLLMsBase(name string, data []byte) error {
	m, err := scanLLMs(name, data)
	if err != nil {
		return err
	}
	tail := m.end != 0 // after the end marker, before a heading
	return eachLine(data, func(n, _, _ int, line []byte) error {
		if m.start != 0 && n >= m.start && n <= m.end {
			return nil // replaced
		}
		if tail && n > m.end && len(bytes.TrimSpace(line)) > 0 {
			if !bytes.HasPrefix(bytes.TrimLeft(line, " "), []byte("#")) {
				return &LineError{Doc: name, Line: n, Err: fmt.Errorf("text between %s and the next heading would read as part of the %q section the build puts there; start it with a heading, or move it above the markers", LLMsEnd, "## "+LLMsSectionName)}
			}
			tail = false
		}
		if g := h2Line.FindSubmatch(line); g != nil && strings.EqualFold(string(bytes.TrimSpace(g[1])), LLMsSectionName) {
			fix := "put " + LLMsStart + " on the line above it and " + LLMsEnd + " below its list, so that the build replaces it"
			if m.start != 0 {
				fix = "remove it, or move it between the markers, where the build replaces it"
			}
			return &LineError{Doc: name, Line: n, Err: fmt.Errorf("has an %q section of its own outside the markers, and the build adds one; %s", "## "+LLMsSectionName, fix)}
		}
		return nil
	})
}

// scanLLMs finds the markers of an llms.txt, and refuses one that is not
// text or whose markers are not one pair in order, each alone on its line.
func scanLLMs(name string, data []byte) (llmsMarkers, error) {
	m := llmsMarkers{eol: "\n"}
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		m.eol = "\r\n"
	}
	bad := func(line int, format string, args ...any) (llmsMarkers, error) {
		return llmsMarkers{}, &LineError{Doc: name, Line: line, Err: fmt.Errorf(format, args...)}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return bad(1+bytes.Count(data[:i], []byte("\n")), "has a NUL byte: it is not a text file; give the site's llms.txt, a Markdown file")
	}
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			i += size
		}
		return bad(1+bytes.Count(data[:i], []byte("\n")), "is not UTF-8 text; save it as UTF-8")
	}
	err := eachLine(data, func(n, off, next int, line []byte) error {
		at := func(format string, args ...any) error {
			return &LineError{Doc: name, Line: n, Err: fmt.Errorf(format, args...)}
		}
		// string(b) == s compares without copying b.
		switch trimmed := bytes.TrimSpace(line); {
		case string(trimmed) == LLMsStart:
			switch {
			case m.start != 0:
				return at("a second %s (the first is on line %d); keep one pair of markers", LLMsStart, m.start)
			case m.end != 0:
				return &LineError{Doc: name, Line: m.end, Err: fmt.Errorf("%s comes before %s on line %d; swap the two lines", LLMsEnd, LLMsStart, n)}
			}
			m.start, m.from = n, off
		case string(trimmed) == LLMsEnd:
			if m.end != 0 {
				return at("a second %s (the first is on line %d); keep one pair of markers", LLMsEnd, m.end)
			}
			m.end, m.to = n, next
		case (bytes.Contains(line, []byte(LLMsStart)) || bytes.Contains(line, []byte(LLMsEnd))) && !linkLine.Match(line):
			// A skill's line may quote a marker in its description,
			// escaped (LLMsDescription); any other line may not.
			return at("a marker shares its line with other text; put each of %s and %s on a line of its own", LLMsStart, LLMsEnd)
		}
		return nil
	})
	if err != nil {
		return llmsMarkers{}, err
	}
	switch {
	case m.start != 0 && m.end == 0:
		return bad(m.start, "%s has no %s after it; add it on a line below the section", LLMsStart, LLMsEnd)
	case m.end != 0 && m.start == 0:
		return bad(m.end, "%s has no %s before it; add it on a line above the section", LLMsEnd, LLMsStart)
	}
	return m, nil
}

// LLMsDescription is a skill's description as its line of llms.txt
// carries it: each run of whitespace and control characters one space, so
// that it cannot end the list, start a heading or fake a marker, and a
// backslash before '\', '[', ']' and '<', so that Markdown makes no link,
// tag or comment of it.
func LLMsDescription(d string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.TrimSpace(d) {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		if strings.ContainsRune(`\[]<`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// llmsURL is how llms.txt links to a dist path: relative to the bundle
// root, where it is, or absolute under Options.BaseURL, with the
// characters that would end a Markdown link's destination percent-encoded.
func (s *set) llmsURL(distPath string) string {
	u := distPath
	if s.o.BaseURL != "" {
		u = joinURL(s.o.BaseURL, distPath)
	}
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		if c := u[i]; c <= ' ' || c == 0x7f || strings.IndexByte("()<>", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// llmsTxt renders llms.txt: the bundle's own, or the site's with the section merged in.
func (s *set) llmsTxt(w io.Writer) error {
	base := s.o.LLMsTxt.Base
	if base == nil {
		title := LLMsSectionName
		if s.o.BaseURL != "" {
			u, _ := url.Parse(s.o.BaseURL) // CheckBaseURL passed
			title = u.Hostname()
		}
		// A paragraph follows the summary: the reference parser takes a
		// blockquote that ends the head for details, not the summary.
		head := "# " + title + "\n\n> The Agent Skills published here, each linked to its " + EntryFile + ".\n\n" +
			"Agents and tools install them from the discovery index at " + s.llmsURL(V2Index) +
			", which gives each skill's digest.\n\n"
		return s.llmsSection(w, head, "\n", nil)
	}
	m, err := scanLLMs(s.o.LLMsTxt.Name, base)
	if err != nil {
		return err
	}
	// The section in place of the markers, or at the end, set off by a
	// blank line from the text around it.
	pre, post := base, []byte(nil)
	if m.start != 0 {
		pre, post = base[:m.from], base[m.to:]
	}
	if len(pre) > 0 {
		if !bytes.HasSuffix(pre, []byte("\n")) {
			pre = append(pre[:len(pre):len(pre)], m.eol...)
		}
		if !blankEnd(pre) {
			pre = append(pre[:len(pre):len(pre)], m.eol...)
		}
	}
	if first, _, _ := bytes.Cut(post, []byte("\n")); len(bytes.TrimSpace(first)) > 0 {
		post = append([]byte(m.eol), post...)
	}
	return s.llmsSection(w, string(pre), m.eol, post)
}

// blankEnd reports whether text, ending with a newline, ends with a blank line.
func blankEnd(text []byte) bool {
	t := bytes.TrimSuffix(text, []byte("\n"))
	return len(bytes.TrimSpace(t[bytes.LastIndexByte(t, '\n')+1:])) == 0
}

// llmsSection renders the skills' section, a line each, between before and after.
func (s *set) llmsSection(w io.Writer, before, eol string, after []byte) error {
	if _, err := io.WriteString(w, before+"## "+LLMsSectionName+eol+eol); err != nil {
		return err
	}
	for i := range s.rows {
		sk, err := s.load(&s.rows[i])
		if err != nil {
			return err
		}
		line := "- [" + sk.Name + "](" + s.llmsURL(SkillFile(sk.Name, EntryFile)) + ")"
		if d := LLMsDescription(sk.Description); d != "" {
			line += ": " + d
		}
		if _, err := io.WriteString(w, line+eol); err != nil {
			return err
		}
	}
	_, err := w.Write(after)
	return err
}

// checkDiscovery returns why the discovery documents o asks for cannot be written.
func checkDiscovery(o Options) error {
	var errs []error
	if l := o.LLMsTxt; l != nil && l.Base != nil {
		errs = append(errs, CheckLLMsBase(l.Name, l.Base))
	}
	if o.AICatalog && CheckBaseURL(o.BaseURL) == nil {
		_, err := AICatalogPublisher(o.BaseURL)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// The AI Catalog's version and the media types of its entries for Agent
// Skills. AICatalogVersion is v0.9.0's (Agent-Card/ai-catalog, released
// 2026-11-22; testdata/ai-catalog/README.md says what the entries and the
// test's schema are written from); AICatalogVersion1 is the draft's "1.0"
// that builds before wrote, which verify still reads
// (ParseAICatalogIdentifier1).
const (
	AICatalogVersion   = "0.9"
	AICatalogVersion1  = "1.0"
	MediaAICatalog     = "application/ai-catalog+json"
	MediaSkillMarkdown = "application/agent-skills+md"
	MediaSkillGzip     = "application/agent-skills+gzip"
	MediaSkillZip      = "application/agent-skills+zip"
)

// AICatalogDocument is the AI Catalog, the document at AICatalog.
type AICatalogDocument struct {
	SpecVersion string           `json:"specVersion"`
	Host        *AICatalogHost   `json:"host,omitempty"`
	Entries     []AICatalogEntry `json:"entries"`
}

// AICatalogHost names the catalog's operator: the base URL's host.
type AICatalogHost struct {
	DisplayName string `json:"displayName"`
}

// AICatalogEntry is one artifact of the AI Catalog: a skill's SKILL.md,
// .tar.gz or .zip. Digest is of the bytes at url ("algorithm:hex", as the
// specification's Trust Manifests spell them); Version is there only when
// SemVer. TrustManifests is empty in a catalog of AICatalogVersion1.
type AICatalogEntry struct {
	Identifier     string                   `json:"identifier"`
	DisplayName    string                   `json:"displayName"`
	Type           string                   `json:"type"`
	URL            string                   `json:"url"`
	Description    string                   `json:"description,omitempty"`
	Version        string                   `json:"version,omitempty"`
	Digest         Digest                   `json:"digest,omitempty"`
	TrustManifests []AICatalogTrustManifest `json:"trustManifests,omitempty"`
}

// AICatalogTrustManifest is the one Trust Manifest the build gives an
// entry: the publisher (Contributor, the base URL) binds the entry's
// release (Subject) to evidence in the bundle (Attestations): checksums.txt
// and, when the build signed, the archive's Sigstore bundle or the skill
// folder's OMS signature. It has no JWS "signature": the Sigstore
// signatures are the attestations. A manifest with no evidence is omitted,
// so an unsigned build's SKILL.md entries have none.
type AICatalogTrustManifest struct {
	Contributor  string                 `json:"contributor"`
	Subject      *AICatalogSubject      `json:"subject,omitempty"`
	Attestations []AICatalogAttestation `json:"attestations,omitempty"`
}

// AICatalogSubject repeats the entry's, naming the release the manifest speaks for.
type AICatalogSubject struct {
	Identifier string `json:"identifier"`
	Type       string `json:"type"`
	URL        string `json:"url,omitempty"`
	Digest     Digest `json:"digest,omitempty"`
	Version    string `json:"version,omitempty"`
}

// AICatalogAttestation is a reference to evidence: its Attest type and URL.
type AICatalogAttestation struct {
	Type        string `json:"type"`
	URI         string `json:"uri"`
	Description string `json:"description,omitempty"`
}

// The attestation types of the build's Trust Manifests, named for the
// file's format (the specification leaves the type open).
const (
	AttestChecksums    = "sha256sum"       // checksums.txt, `sha256sum -c` format
	AttestSigstore     = "sigstore-bundle" // <artifact>.sigstore.json
	AttestOMSSignature = "oms-signature"   // the skill folder's skill.oms.sig (OMS v1.0)
)

// AICatalogManifest is the Trust Manifest of the entry e (its subject
// filled from e) for skill's artifact at the dist path path, as o says
// the build signs. It is nil when there is no evidence to point at.
func AICatalogManifest(e AICatalogEntry, skill, path string, o Options) *AICatalogTrustManifest {
	var att []AICatalogAttestation
	base := o.BaseURL
	if path == SkillFile(skill, EntryFile) {
		if o.SignsFolders {
			att = append(att, AICatalogAttestation{AttestOMSSignature, joinURL(base, FolderSignature(skill)),
				"the skill folder's signature (OpenSSF Model Signing), over every file with its sha256, SKILL.md among them"})
		}
	} else {
		att = append(att, AICatalogAttestation{AttestChecksums, joinURL(base, Checksums), "lists the archive's sha256"})
		if o.Signs {
			att = append(att, AICatalogAttestation{AttestSigstore, joinURL(base, Signature(path)), "the archive's Sigstore signature"})
		}
	}
	if att == nil {
		return nil
	}
	return &AICatalogTrustManifest{Contributor: base, Attestations: att,
		Subject: &AICatalogSubject{Identifier: e.Identifier, Type: e.Type, URL: e.URL, Digest: e.Digest, Version: e.Version}}
}

// DecodeAICatalog reads the AI Catalog.
func DecodeAICatalog(data []byte) (*AICatalogDocument, error) {
	return decode[AICatalogDocument](AICatalog, data)
}

// The forms of a skill in the AI Catalog, which tell its entries'
// identifiers apart (each must be unique in a catalog).
var aiForms = []aiForm{
	{"md", MediaSkillMarkdown, ""},
	{"gzip", MediaSkillGzip, TarGz},
	{"zip", MediaSkillZip, Zip},
}

type aiForm struct{ form, media, ext string }

// AICatalogMedia is the media type of an identifier's form ("md", "gzip", "zip"), or "".
func AICatalogMedia(form string) string {
	if i := slices.IndexFunc(aiForms, func(f aiForm) bool { return f.form == form }); i >= 0 {
		return aiForms[i].media
	}
	return ""
}

// publisherRE is what urn:air's publisher may be: an ASCII DNS name or an IPv4 address.
var publisherRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)

// AICatalogPublisher is the publisher segment of the AI Catalog's
// identifiers for a bundle served at baseURL: its host, in lower case,
// without a port. urn:air anchors an identifier on the publisher's domain.
func AICatalogPublisher(baseURL string) (string, error) {
	if baseURL == "" {
		return "", errors.New("the AI Catalog needs a base URL (--base-url): its identifiers name the publisher's domain (urn:air:<domain>:…) and its urls are absolute")
	}
	if err := CheckBaseURL(baseURL); err != nil {
		return "", err
	}
	u, _ := url.Parse(baseURL)
	h := strings.ToLower(u.Hostname())
	if !publisherRE.MatchString(h) {
		return "", fmt.Errorf("base URL %q: the AI Catalog's identifiers name its host, and %q is not a DNS name; use one, in its ASCII form (xn--…) if it is international", baseURL, u.Hostname())
	}
	return h, nil
}

// AICatalogIdentifier is the identifier of a skill's entry in the AI
// Catalog, urn:air:<publisher>:<name>/<form>:skill: v0.9's
// urn:air:{publisher}:{name}[:{kind}] (Agent-Card/ai-catalog pull request
// 138), with the form in the name, as a skill has three entries.
func AICatalogIdentifier(publisher, form, name string) string {
	return "urn:air:" + publisher + ":" + name + "/" + form + ":skill"
}

// ParseAICatalogIdentifier is AICatalogIdentifier's inverse.
func ParseAICatalogIdentifier(id string) (publisher, form, name string, ok bool) {
	p := strings.Split(id, ":")
	if len(p) != 5 || p[0] != "urn" || p[1] != "air" || p[4] != "skill" || !publisherRE.MatchString(p[2]) {
		return "", "", "", false
	}
	name, form, ok = strings.Cut(p[3], "/")
	if !ok || AICatalogMedia(form) == "" || CheckName(name) != nil {
		return "", "", "", false
	}
	return p[2], form, name, true
}

// ParseAICatalogIdentifier1 reads the identifiers of a catalog of
// AICatalogVersion1, urn:air:<publisher>:skill:<form>:<name>.
func ParseAICatalogIdentifier1(id string) (publisher, form, name string, ok bool) {
	p := strings.Split(id, ":")
	if len(p) != 6 || p[0] != "urn" || p[1] != "air" || p[3] != "skill" || !publisherRE.MatchString(p[2]) ||
		AICatalogMedia(p[4]) == "" || CheckName(p[5]) != nil {
		return "", "", "", false
	}
	return p[2], p[4], p[5], true
}

// aiCatalog renders the AI Catalog: each skill's SKILL.md, .tar.gz and .zip, by name.
func (s *set) aiCatalog(w io.Writer) error {
	pub, err := AICatalogPublisher(s.o.BaseURL)
	if err != nil {
		return err
	}
	shell := AICatalogDocument{SpecVersion: AICatalogVersion, Host: &AICatalogHost{DisplayName: pub}, Entries: []AICatalogEntry{}}
	return stream(w, shell, array{"entries", func(yield func(any, error) bool) {
		for i := range s.rows {
			sk, err := s.load(&s.rows[i]) // once for its three entries
			if err != nil {
				yield(nil, err)
				return
			}
			for _, f := range aiForms {
				if !yield(s.aiEntry(pub, sk, f), nil) {
					return
				}
			}
		}
	}})
}

// aiEntry is the AI Catalog's entry of a skill's form.
func (s *set) aiEntry(pub string, sk Skill, f aiForm) AICatalogEntry {
	e := AICatalogEntry{Identifier: AICatalogIdentifier(pub, f.form, sk.Name), DisplayName: sk.Name, Type: f.media,
		Description: sk.Description, Version: sk.Version}
	path := SkillFile(sk.Name, EntryFile)
	e.Digest = sk.entry().Digest
	for _, a := range archives(sk.TarGz, sk.Zip) {
		if a.ext == f.ext {
			path, e.Digest = ArchivePath(sk.Name, a.a.Digest, a.ext), a.a.Digest
		}
	}
	e.URL = joinURL(s.o.BaseURL, path)
	if m := AICatalogManifest(e, sk.Name, path, s.o); m != nil {
		e.TrustManifests = []AICatalogTrustManifest{*m}
	}
	return e
}
