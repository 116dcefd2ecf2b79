// Package catalog renders index.html, the bundle's catalog for people:
// every skill with its description, license, files, sizes, digests,
// download links, install commands and its SKILL.md as HTML, in one
// self-contained file (the stylesheet inlined; one script, its own
// filter.js, a search box the page works without, which the
// Content-Security-Policy allows alone, by its hash).
//
// It must not do I/O of its own (it writes to the writer it is given and
// reads bodies through Skill.Body), link outside the bundle (every link
// is relative, or under Options.BaseURL, and names a file the bundle
// holds), let a SKILL.md body run a script (bodies are untrusted), or hold
// every skill: Render streams them through Skills, a few per worker, and
// keeps only each name. The same skills give the same bytes.
package catalog

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/parallel"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/templates"
)

// Skill is what the catalog shows of one skill.
type Skill struct {
	layout.Skill         // name, description, files, archives, content digest
	License       string // the frontmatter license; "" if none
	Compatibility string // the frontmatter compatibility; "" if none
	// Body returns the SKILL.md Markdown after the frontmatter. Render calls
	// it once per skill, from several goroutines at once, when it renders
	// that skill's section, so that no catalog holds every body at once.
	Body func() ([]byte, error)
}

// Skills is the skills a catalog shows, read one at a time, so that a
// page of any size renders without holding them all: a build that keeps
// its skills on disk reads each back when asked.
type Skills interface {
	// Len is the number of skills.
	Len() int
	// Skill returns the i-th skill, 0 <= i < Len(), the same value on
	// every call. Render calls it more than once per skill (to check it,
	// for the table of contents and for its section) and from several
	// goroutines at once.
	Skill(i int) (Skill, error)
}

// List is Skills held in a slice, for callers with few skills (and tests).
type List []Skill

// Len returns len(l).
func (l List) Len() int { return len(l) }

// Skill returns l[i].
func (l List) Skill(i int) (Skill, error) { return l[i], nil }

// Options say how the catalog addresses the bundle. The zero value gives
// relative links and the default title.
type Options struct {
	// BaseURL is the absolute URL at which dist/ is served. Empty means
	// links relative to index.html, and install commands that show a
	// placeholder host.
	BaseURL string
	// Generator names the tool that built the bundle, shown in the footer.
	Generator string
	// Title heads the page; empty means "Agent Skills".
	Title string
	// Publisher, if set, is who publishes the skills, shown under the
	// title ("by Publisher").
	Publisher string
	// Source, if set, is the absolute http or https URL of the skills'
	// source (a repository, say), linked under the title.
	Source string
}

// placeholder stands for the host in install commands when no base URL is
// known: the skills CLI and curl need an absolute URL.
const placeholder = "https://YOUR-HOST"

// hostHint is the paragraph of a page without a base URL that asks the
// reader to put the host in: the template's, as it renders.
const hostHint = "\n<p class=\"hint\">Replace <code>" + placeholder + "</code> with the address this folder is served from.</p>"

// WithHost returns a page that Render made without a base URL, with base
// (an absolute http or https URL without a trailing slash, such as
// http://127.0.0.1:8080) in its install commands in place of the
// placeholder, and without the hint to replace it: the page as a server
// that knows its own address shows it. Links stay relative. A page made
// with a base URL has no placeholder and comes back unchanged, as does
// a page for a base that a shell would not take as one word ([::1] is a
// glob to zsh): the placeholder and its hint are better than a command
// that fails.
func WithHost(page []byte, base string) []byte {
	if !bytes.Contains(page, []byte(placeholder)) || shellQuote(base) != base {
		return page
	}
	page = bytes.Replace(page, []byte(hostHint), nil, 1)
	return bytes.ReplaceAll(page, []byte(placeholder), []byte(template.HTMLEscapeString(base)))
}

// page is the data of the "head" and "foot" templates.
type page struct {
	Title     string
	Publisher string
	Source    string // an http(s) URL, checked by scan
	Generator string
	Host      string // the bundle's absolute URL, or placeholder
	Known     bool   // Host is real
	AddAll    string // the command that installs every skill
	Indexes   []link
	Count     int  // of skills
	Inline    bool // SKILL.md bodies are shown; see InlineBudget
	CSS       template.CSS
	JS        template.JS
	CSP       string
}

// InlineBudget is the most Markdown, over all skills' SKILL.md files, that
// the page shows rendered. Past it every skill links its SKILL.md instead:
// rendered, ten thousand skills make a page of about 150 MB, which no
// browser opens comfortably and static hosts refuse (Cloudflare Pages
// serves files of at most 25 MiB). Deciding on the whole tree, not skill
// by skill, keeps the page uniform and a pure function of the input.
const InlineBudget = 8 << 20

// tocEntry is the data of the "entry" template: one skill in the table of
// contents. Letter is set on the first skill of each first letter, the
// target of the letter index (the search that needs no script).
type tocEntry struct{ Name, Description, Letter string }

// entry is what Render keeps of every skill from its first reading to the
// last: enough to sort the page and read the skill again, a few dozen
// bytes.
type entry struct {
	name string
	i    int // the skill's index in Skills
}

type link struct {
	Label, Href, Note string
}

// view is one skill as the "skill" template shows it.
type view struct {
	Name, Description, License, Compatibility string
	Content                                   digest
	Files                                     []fileView
	Size                                      string // of all files
	Archives                                  []archiveView
	Add, MCP                                  string
	Inline                                    bool // the page shows SKILL.md rendered
	Body                                      template.HTML
}

type fileView struct {
	Path, Href, Size string
	Bytes            int64
	Digest           digest
	Exec             bool
}

type archiveView struct {
	Name, Ext, Href, Size string
	Bytes                 int64
	Digest                digest
	Fetch, Check          string // curl and sha256sum -c commands
}

// digest is a digest as shown: shortened, with the full value for a tooltip.
type digest struct{ Full, Short string }

func short(d layout.Digest) digest {
	hex := d.Hex()
	return digest{Full: string(d), Short: hex[:min(12, len(hex))]}
}

// Render writes dist/index.html (layout.Catalog) for skills to w. Skills
// are shown sorted by name and files by path, whatever the order given.
//
// Nothing is written unless every skill passes the checks that keep links
// right: a first pass reads every skill to check it, keeping its name.
// Then the page is written in name order, each skill read again for its
// entry in the table of contents and for its section. Sections render in
// parallel but are written in name order, with at most two per CPU in
// flight, so memory does not grow with the number of skills. The first
// error (a Skill, a Body, a section or a write that fails) stops the
// render and names its skill; what was written by then is a truncated
// page.
func Render(w io.Writer, skills Skills, o Options) error {
	idx, markdown, err := scan(skills, o)
	if err != nil {
		return err
	}
	a, err := load()
	if err != nil {
		return err
	}
	base := strings.TrimRight(o.BaseURL, "/")
	href := func(distPath string) string {
		if base == "" {
			return escape(distPath)
		}
		return base + "/" + escape(distPath)
	}
	// abs is a URL for a shell command, which has no page to be relative to.
	abs := func(distPath string) string {
		if base == "" {
			return placeholder + "/" + escape(distPath)
		}
		return href(distPath)
	}
	host := base
	if host == "" {
		host = placeholder
	}
	p := page{
		Title:     o.Title,
		Publisher: o.Publisher,
		Source:    o.Source,
		Generator: o.Generator,
		Host:      host,
		Known:     base != "",
		AddAll:    "npx skills add " + shellQuote(host),
		Indexes: []link{
			{"index.json", href(layout.V2Index), "Agent Skills discovery v0.2.0"},
			{"skills.json", href(layout.MCPSkills), "MCP skills/list"},
			{"checksums.txt", href(layout.Checksums), "sha256sum -c"},
		},
		Count:  len(idx),
		Inline: markdown <= InlineBudget,
		CSS:    template.CSS(a.css),
		JS:     template.JS(a.js),
		CSP:    csp(a.css, a.js, o.BaseURL),
	}
	if p.Title == "" {
		p.Title = "Agent Skills"
	}
	if err := head(w, a.t, p, skills, idx); err != nil {
		return err
	}
	// Rendering SKILL.md is most of the work on a large bundle, and each
	// section renders alone, so sections render in parallel; each waits
	// for its turn to be written. A worker holds one skill and its section
	// at a time, so the workers bound the memory. There are two per CPU so
	// that the CPUs stay busy while a slow section holds up the ones
	// behind it.
	t := turns{c: sync.NewCond(new(sync.Mutex))}
	err = parallel.Each(len(idx), 2*runtime.GOMAXPROCS(0), func(i int) error {
		s, err := reread(skills, idx[i])
		var sec []byte
		if err == nil {
			sec, err = section(a.t, s, p.Inline, href, abs, host)
		}
		if !t.wait(i) {
			return errStopped
		}
		if err == nil {
			if _, werr := w.Write(sec); werr != nil {
				err = fmt.Errorf("catalog: skill %q: %w", s.Name, werr)
			}
		}
		t.done(err == nil)
		return err
	})
	if err != nil {
		return err
	}
	return part(w, a.t, "foot", p)
}

// turns lets the section workers write in index order. A failure also
// takes its turn, so the error Render returns is that of the first skill
// in name order that failed, and every section before it was written.
type turns struct {
	c       *sync.Cond
	next    int  // the index whose turn it is
	stopped bool // the index next failed; no later index may write
}

// wait blocks until it is index i's turn and reports true, or reports
// false once an earlier index has failed.
func (t *turns) wait(i int) bool {
	t.c.L.Lock()
	defer t.c.L.Unlock()
	for t.next < i && !t.stopped {
		t.c.Wait()
	}
	return !t.stopped
}

// done ends the current turn: it passes to the next index, or, if the
// section failed, to no one.
func (t *turns) done(ok bool) {
	t.c.L.Lock()
	if ok {
		t.next++
	} else {
		t.stopped = true
	}
	t.c.L.Unlock()
	t.c.Broadcast()
}

// errStopped is what the sections after a failed one return. It never
// reaches Render's caller: parallel.Each returns the error of the lowest
// index, and the failed section's index is lower.
var errStopped = errors.New("catalog: stopped after an earlier skill failed")

// head writes the page up to the first section: the masthead and the table
// of contents, whose entries it renders from one skill at a time, reading
// each again rather than keeping every description. Templates write in
// many small pieces (a few per entry), so it writes through a buffer.
func head(w io.Writer, t *template.Template, p page, skills Skills, idx []entry) error {
	bw := bufio.NewWriter(w)
	if err := t.ExecuteTemplate(bw, "head", p); err != nil {
		return fmt.Errorf("catalog: head of the page: %w", err)
	}
	if err := t.ExecuteTemplate(bw, "letters", letters(idx)); err != nil {
		return fmt.Errorf("catalog: head of the page: %w", err)
	}
	prev := ""
	for _, e := range idx {
		s, err := reread(skills, e)
		if err != nil {
			return err
		}
		te := tocEntry{Name: s.Name, Description: s.Description}
		if l := s.Name[:1]; l != prev {
			te.Letter, prev = l, l
		}
		if err := t.ExecuteTemplate(bw, "entry", te); err != nil {
			return fmt.Errorf("catalog: head of the page: %w", err)
		}
	}
	if err := t.ExecuteTemplate(bw, "toc-end", p); err != nil {
		return fmt.Errorf("catalog: head of the page: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("catalog: head of the page: %w", err)
	}
	return nil
}

// letters are the first letters of the skills' names, in order, once
// each: names are sorted and start with [a-z0-9] (layout.CheckName).
func letters(idx []entry) []string {
	var out []string
	for _, e := range idx {
		if l := e.name[:1]; len(out) == 0 || out[len(out)-1] != l {
			out = append(out, l)
		}
	}
	return out
}

// part writes the named part of the page through a buffer, since
// templates write in many small pieces.
func part(w io.Writer, t *template.Template, name string, p page) error {
	bw := bufio.NewWriter(w)
	if err := t.ExecuteTemplate(bw, name, p); err != nil {
		return fmt.Errorf("catalog: %s of the page: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("catalog: %s of the page: %w", name, err)
	}
	return nil
}

// section renders the section of one skill, body included.
func section(t *template.Template, s Skill, inline bool, href, abs func(string) string, host string) ([]byte, error) {
	v, err := newView(s, inline, href, abs, host)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "skill", v); err != nil {
		return nil, fmt.Errorf("catalog: skill %q: %w", s.Name, err)
	}
	return buf.Bytes(), nil
}

func newView(s Skill, inline bool, href, abs func(string) string, host string) (view, error) {
	v := view{
		Inline:        inline,
		Name:          s.Name,
		Description:   s.Description,
		License:       s.License,
		Compatibility: s.Compatibility,
		Content:       short(s.ContentDigest),
		Add:           "npx skills add " + shellQuote(host) + " --skill " + s.Name,
		MCP:           layout.SkillURI(s.Name, layout.EntryFile),
	}
	files := slices.Clone(s.Files)
	slices.SortFunc(files, func(a, b layout.File) int { return strings.Compare(a.Path, b.Path) })
	known := map[string]bool{}
	var total int64
	for _, f := range files {
		known[f.Path] = true
		total += f.Size
		v.Files = append(v.Files, fileView{
			Path:   f.Path,
			Href:   href(layout.SkillFile(s.Name, f.Path)),
			Size:   human.Bytes(f.Size),
			Bytes:  f.Size,
			Digest: short(f.Digest),
			Exec:   f.Exec,
		})
	}
	v.Size = human.Bytes(total)
	for _, a := range []struct {
		ext string
		a   layout.Archive
	}{{layout.TarGz, s.TarGz}, {layout.Zip, s.Zip}} {
		name := layout.ArchiveName(s.Name, a.a.Digest, a.ext)
		p := layout.ArchivePath(s.Name, a.a.Digest, a.ext)
		v.Archives = append(v.Archives, archiveView{
			Name:   name,
			Ext:    a.ext,
			Href:   href(p),
			Size:   human.Bytes(a.a.Size),
			Bytes:  a.a.Size,
			Digest: short(a.a.Digest),
			Fetch:  "curl -LO " + shellQuote(abs(p)),
			// Two spaces: the sha256sum -c line format.
			Check: "echo '" + a.a.Digest.Hex() + "  " + name + "' | sha256sum -c",
		})
	}
	if !inline {
		return v, nil
	}
	md, err := s.Body()
	if err != nil {
		return view{}, fmt.Errorf("catalog: skill %q: reading SKILL.md: %w", s.Name, err)
	}
	if v.Body, err = renderBody(s.Name, md, known, href); err != nil {
		return view{}, err
	}
	return v, nil
}

// scan reads every skill once, before anything is written, for what needs
// them all: the checks (names must be unique), the order of the page and
// whether the bodies fit it (see InlineBudget). It returns an entry per
// skill, sorted by name, and the size of all SKILL.md files. A skill that
// cannot be read stops it; failed checks do not, so that the error lists
// them all.
func scan(skills Skills, o Options) ([]entry, int64, error) {
	var errs []error
	if o.Source != "" {
		if u, err := url.Parse(o.Source); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
			errs = append(errs, fmt.Errorf("catalog: source %q: use an absolute http or https URL, such as https://github.com/OWNER/REPO", o.Source))
		}
	}
	if o.BaseURL != "" {
		u, err := url.Parse(o.BaseURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			errs = append(errs, fmt.Errorf("catalog: base URL %q: use an absolute http or https URL without query or fragment, such as https://example.com/skills", o.BaseURL))
		}
	}
	n := skills.Len()
	idx := make([]entry, 0, n)
	seen := make(map[string]bool, n)
	var markdown int64
	for i := range n {
		s, err := skills.Skill(i)
		if err != nil {
			return nil, 0, fmt.Errorf("catalog: skill %d: %w", i, err)
		}
		// A copy, so that the entry does not keep alive whatever the
		// name was cut from, such as the whole record the skill was
		// decoded from.
		name := strings.Clone(s.Name)
		errs = append(errs, check(s, seen[name])...)
		seen[name] = true
		idx = append(idx, entry{name, i})
		for _, f := range s.Files {
			if f.Path == layout.EntryFile {
				markdown += f.Size
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, 0, err
	}
	// Names are unique, so the order is total.
	slices.SortFunc(idx, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return idx, markdown, nil
}

// reread returns the skill of e again, for the page. Skills promises the
// same skill on every call; should it break that promise, the skill is
// checked again, so that an unchecked name or digest never reaches the
// page and a missing Body fails rather than panics.
func reread(skills Skills, e entry) (Skill, error) {
	s, err := skills.Skill(e.i)
	if err != nil {
		return Skill{}, fmt.Errorf("catalog: skill %q: %w", e.name, err)
	}
	if s.Name != e.name {
		return Skill{}, fmt.Errorf("catalog: skill %q: read again as %q; Skills must return the same skill on every call", e.name, s.Name)
	}
	if err := errors.Join(check(s, false)...); err != nil {
		return Skill{}, err
	}
	return s, nil
}

// check returns everything in s that would make a link wrong, each naming
// s; dup says an earlier skill has its name. Names, digests and paths end
// up in URLs and ids.
func check(s Skill, dup bool) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("catalog: skill %q: "+format, append([]any{s.Name}, args...)...))
	}
	if err := layout.CheckName(s.Name); err != nil {
		bad("%v", err)
	}
	if dup {
		bad("two skills have this name; names must be unique in a bundle")
	}
	if s.Body == nil {
		bad("no Body to read SKILL.md with")
	}
	if !s.ContentDigest.Valid() {
		bad("content digest %q is not \"sha256:\" and 64 lowercase hex digits", s.ContentDigest)
	}
	if !s.TarGz.Digest.Valid() || !s.Zip.Digest.Valid() {
		bad("archive digests %q and %q must both be \"sha256:\" and 64 lowercase hex digits", s.TarGz.Digest, s.Zip.Digest)
	}
	for _, f := range s.Files {
		if !f.Digest.Valid() {
			bad("file %q: digest %q is not \"sha256:\" and 64 lowercase hex digits", f.Path, f.Digest)
		}
	}
	return errs
}

// assets are the embedded templates, stylesheet and script, parsed once.
type assets struct {
	t       *template.Template
	css, js string
}

var load = sync.OnceValues(func() (assets, error) {
	t, err := template.ParseFS(templates.Catalog, "catalog/index.html")
	if err != nil {
		return assets{}, fmt.Errorf("catalog template: %w", err)
	}
	css, err := templates.Catalog.ReadFile("catalog/catalog.css")
	if err != nil {
		return assets{}, fmt.Errorf("catalog stylesheet: %w", err)
	}
	js, err := templates.Catalog.ReadFile("catalog/filter.js")
	if err != nil {
		return assets{}, fmt.Errorf("catalog script: %w", err)
	}
	// The policy pins the bytes between <script> and </script>; a final
	// newline there would be one more byte to get right.
	return assets{t, string(css), strings.TrimRight(string(js), "\n")}, nil
})

// csp is the page's Content-Security-Policy: no frames, no forms, no
// fetches; only the inline stylesheet and the page's own script, each
// pinned by its hash, and images of the bundle itself. It backs up the
// Markdown renderer: even HTML that slipped through could not run or
// phone home.
func csp(css, js, base string) string {
	img := "'self'"
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		img += " " + u.Scheme + "://" + u.Host
	}
	return "default-src 'none'; style-src " + hash(css) + "; script-src " + hash(js) +
		"; img-src " + img + "; base-uri 'none'; form-action 'none'"
}

// hash is the CSP source that allows an inline element of exactly text.
func hash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// characters that are plain in every shell.
func shellQuote(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("@%+=:,./_-", c) >= 0) {
			plain = false
			break
		}
	}
	if plain && s != "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
