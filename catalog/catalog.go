// Package catalog renders the bundle's catalog for people: index.html, the
// front page, a card per skill linking to its page, skills/<name>.html
// (layout.CatalogPage), which shows its license, files, digests, download
// links, install commands and SKILL.md as HTML. Each file is
// self-contained (the stylesheet inlined); the front page's one script,
// filter.js, is allowed by its hash, and a skill's page allows none.
//
// It must not do I/O of its own (it writes to the writer it is given and
// reads bodies through Skill.Body), link outside the bundle, let a
// SKILL.md body run a script (bodies are untrusted), or hold every skill:
// New reads them through Skills once, keeping only each name, and Render
// and Pages read each again, a few per worker. The same skills give the
// same bytes.
package catalog

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"runtime"
	"slices"
	"strconv"
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
	// Body returns the SKILL.md Markdown after the frontmatter. Pages calls
	// it once per skill, from several goroutines at once, when it renders
	// that skill's page, so that no catalog holds every body at once.
	Body func() ([]byte, error)
}

// Skills is the skills a catalog shows, read one at a time, so that a
// page of any size renders without holding them all: a build that keeps
// its skills on disk reads each back when asked.
type Skills interface {
	// Len is the number of skills.
	Len() int
	// Skill returns the i-th skill, 0 <= i < Len(), the same value on
	// every call. New calls it once per skill to check it, Render for its
	// entry and Pages for its page, from several goroutines at once.
	Skill(i int) (Skill, error)
}

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
	if !bytes.Contains(page, []byte(placeholder)) || human.ShellQuote(base) != base {
		return page
	}
	page = bytes.Replace(page, []byte(hostHint), nil, 1)
	return bytes.ReplaceAll(page, []byte(placeholder), []byte(template.HTMLEscapeString(base)))
}

// page is the data of the templates: "head" and "foot" for the front
// page, "page" and "page-end" for a skill's. It embeds nothing, since a template looks a
// field of an embedded struct up by a search that allocates each time
// (40,000 of the 1.17 million allocations of 500 skills' pages).
type page struct {
	Title     string // Options.Title, never empty here
	Publisher string
	Source    string
	Generator string
	Host      string // the bundle's absolute URL, or placeholder
	Known     bool   // Host is real
	AddAll    string // the command that installs every skill
	Indexes   []link
	Count     int // of skills
	CSS       template.CSS
	JS        template.JS
	CSP       string
	Home      string // a skill's page: the link back to the front page
	Skill     view   // a skill's page: the skill
	base, up  string // see newPage
}

// tocEntry is the data of the "entry" template: one skill in the table of
// contents, linking its page. Letter is set on the first skill of each
// first letter, the target of the letter index (the search that needs no
// script).
type tocEntry struct{ Name, Description, Letter, Href string }

// entry is what a Catalog keeps of every skill: enough to sort the pages
// and read the skill again, a few dozen bytes.
type entry struct {
	name string
	i    int // the skill's index in Skills
}

type link struct {
	Label, Href, Note string
}

// view is one skill as the "skill" template shows it. Numbers are
// strings, and nothing is left for the template to look up (len, index):
// each function or number it meets costs it a call through reflection.
type view struct {
	Name, Description, License, Compatibility string
	Content                                   digest
	Files                                     []fileView
	Count, Size                               string // of all files
	Archives                                  []archiveView
	Add, MCP                                  string
	Fetch, Check                              string // curl and sha256sum -c commands of the first archive
	// md is the SKILL.md body and files the paths its links may name;
	// Pages renders it between the "page" and "page-end" templates.
	md    []byte
	files map[string]bool
}

type fileView struct {
	Path, Href, Size string
	Bytes            string // Size exactly
	Digest           digest
	Exec             bool
}

type archiveView struct {
	Name, Ext, Href, Size string
	Digest                digest
}

// digest is a digest as shown: shortened, with the full value for a tooltip.
type digest struct{ Full, Short string }

func short(d layout.Digest) digest {
	hex := d.Hex()
	return digest{Full: string(d), Short: hex[:min(12, len(hex))]}
}

// Catalog is the skills a catalog shows, checked and in name order: the
// one reading of every skill that the front page and the skills' pages
// share. It keeps each skill's name and index, and reads the rest again
// when it renders it.
type Catalog struct {
	skills Skills
	o      Options
	idx    []entry // sorted by name
	a      assets
}

// New reads every skill once, before anything is written, for what needs
// them all: the checks that keep links right (names must be unique) and
// the order of the pages. A skill that cannot be read stops it; failed
// checks do not, so that the error lists them all.
func New(skills Skills, o Options) (*Catalog, error) {
	var errs []error
	if u, err := url.Parse(o.Source); o.Source != "" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil) {
		errs = append(errs, fmt.Errorf("catalog: source %q: use an absolute http or https URL, such as https://github.com/OWNER/REPO", o.Source))
	}
	if err := layout.CheckBaseURL(o.BaseURL); err != nil {
		errs = append(errs, fmt.Errorf("catalog: %w", err))
	}
	n := skills.Len()
	idx := make([]entry, 0, n)
	seen := make(map[string]bool, n)
	for i := range n {
		s, err := skills.Skill(i)
		if err != nil {
			return nil, fmt.Errorf("catalog: skill %d: %w", i, err)
		}
		// A copy, so that the entry does not keep alive whatever the
		// name was cut from, such as the whole record the skill was
		// decoded from.
		name := strings.Clone(s.Name)
		errs = append(errs, check(s, seen[name])...)
		seen[name] = true
		idx = append(idx, entry{name, i})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// Names are unique, so the order is total.
	slices.SortFunc(idx, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	a, err := load()
	if err != nil {
		return nil, err
	}
	return &Catalog{skills, o, idx, a}, nil
}

// Render writes dist/index.html (layout.Catalog), the front page, to w:
// every skill by name, with its description, linking its page (see
// Pages). Each skill is read again for its entry, rather than every
// description kept. The first error (a Skill or a write that fails) stops
// the render and names its skill; what was written by then is a truncated
// page.
func (c *Catalog) Render(w io.Writer) error {
	p := newPage(c.o, c.a, len(c.idx), "")
	p.JS, p.CSP = template.JS(c.a.js), csp(c.a.css, c.a.js, c.o.BaseURL)
	// Templates write in many small pieces (a few per entry), so the page
	// is written through a buffer, flushed once the head (the masthead and
	// the table of contents) is whole, and again after the foot.
	bw := bufio.NewWriter(w)
	err := c.a.t.ExecuteTemplate(bw, "head", p)
	if err == nil {
		err = c.a.t.ExecuteTemplate(bw, "letters", letters(c.idx))
	}
	for i := 0; err == nil && i < len(c.idx); i++ {
		var s Skill
		if s, err = reread(c.skills, c.idx[i]); err != nil {
			return err
		}
		te := tocEntry{Name: s.Name, Description: s.Description, Href: p.href(layout.CatalogPage(s.Name))}
		if l := s.Name[:1]; i == 0 || c.idx[i-1].name[:1] != l {
			te.Letter = l
		}
		err = c.a.t.ExecuteTemplate(bw, "entry", te)
	}
	if err == nil {
		err = c.a.t.ExecuteTemplate(bw, "toc-end", p)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("catalog: head of the page: %w", err)
	}
	if err = c.a.t.ExecuteTemplate(bw, "foot", p); err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("catalog: foot of the page: %w", err)
	}
	return nil
}

// Pages renders the page of every skill, layout.CatalogPage, and hands it
// to write with the skill's index in the Skills, each page once, on
// several goroutines at once; the page's bytes are write's only until it
// returns. A page holds the skill's SKILL.md rendered, the slow part on a
// large bundle, so pages render in parallel, two workers per CPU, each
// holding one skill and its page. The first error (a Skill, a Body, a
// page or a write) stops the rest and is returned, naming its skill.
func (c *Catalog) Pages(write func(i int, page []byte) error) error {
	// Every page has the same masthead and policy (its stylesheet hashed
	// once); each takes a copy and sets its skill. Its start ("meta") and
	// end ("page-end") are the same bytes on every page, rendered once.
	shared := newPage(c.o, c.a, len(c.idx), "../")
	shared.CSP = csp(c.a.css, "", c.o.BaseURL)
	shared.Home = shared.href(layout.Catalog)
	var meta, end bytes.Buffer
	if err := c.a.t.ExecuteTemplate(&meta, "meta", shared); err != nil {
		return fmt.Errorf("catalog: head of a skill's page: %w", err)
	}
	if err := c.a.t.ExecuteTemplate(&end, "page-end", shared); err != nil {
		return fmt.Errorf("catalog: end of a skill's page: %w", err)
	}
	return parallel.Each(len(c.idx), 2*runtime.GOMAXPROCS(0), func(k int) error {
		s, err := reread(c.skills, c.idx[k])
		if err != nil {
			return err
		}
		// A worker's buffer serves page after page, so rendering
		// thousands of pages leaves no trail of grown buffers for the
		// collector to catch up with.
		buf := buffers.Get().(*bytes.Buffer)
		defer buffers.Put(buf)
		buf.Reset()
		// The page has no script: default-src 'none' refuses every one,
		// as its CSP says.
		p := shared
		if p.Skill, err = newView(s, p.href, p.Host); err != nil {
			return err
		}
		buf.Write(meta.Bytes())
		if err := c.a.t.ExecuteTemplate(buf, "page", p); err != nil {
			return fmt.Errorf("catalog: skill %q: %w", s.Name, err)
		}
		// SKILL.md, the bulk of the page, renders straight into it:
		// through the template it was rendered into a buffer of its own,
		// copied into a string and copied twice more (its escaper passes
		// template.HTML through unchanged), some 40 KB of garbage a page
		// on the bench tree, whose SKILL.md files are 9 KB.
		if err := renderBody(buf, s.Name, p.Skill.md, p.Skill.files, p.href); err != nil {
			return err
		}
		buf.Write(end.Bytes())
		if err := write(c.idx[k].i, buf.Bytes()); err != nil {
			return fmt.Errorf("catalog: skill %q: %w", s.Name, err)
		}
		return nil
	})
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// newPage is the data every page shares; up is the way from the page's
// folder to dist/ ("" or "../"), which its relative links start with.
func newPage(o Options, a assets, count int, up string) page {
	base := strings.TrimRight(o.BaseURL, "/")
	host := cmp.Or(base, placeholder)
	p := page{
		Title:     cmp.Or(o.Title, "Agent Skills"),
		Publisher: o.Publisher,
		Source:    o.Source,
		Generator: o.Generator,
		Host:      host,
		Known:     base != "",
		AddAll:    "npx skills add " + human.ShellQuote(host),
		Count:     count,
		CSS:       template.CSS(a.css),
		base:      base,
		up:        up,
	}
	p.Indexes = []link{
		{"index.json", p.href(layout.V2Index), "Agent Skills discovery v0.2.0"},
		{"skills.json", p.href(layout.MCPSkills), "MCP skills/list"},
		{"checksums.txt", p.href(layout.Checksums), "sha256sum -c"},
	}
	return p
}

// href is the link from the page to a dist path.
func (p page) href(distPath string) string {
	if p.base == "" {
		return p.up + escape(distPath)
	}
	return p.base + "/" + escape(distPath)
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

// newView is the skill as its page shows it; host is the bundle's
// absolute URL (or the placeholder), which shell commands need.
func newView(s Skill, href func(string) string, host string) (view, error) {
	v := view{
		Name:          s.Name,
		Description:   s.Description,
		License:       s.License,
		Compatibility: s.Compatibility,
		Content:       short(s.ContentDigest),
		Add:           "npx skills add " + human.ShellQuote(host) + " --skill " + s.Name,
		MCP:           layout.SkillURI(s.Name, layout.EntryFile),
	}
	files := slices.Clone(s.Files)
	slices.SortFunc(files, func(a, b layout.File) int { return strings.Compare(a.Path, b.Path) })
	v.files = make(map[string]bool, len(files))
	v.Files = make([]fileView, 0, len(files))
	var total int64
	for _, f := range files {
		v.files[f.Path] = true
		total += f.Size
		v.Files = append(v.Files, fileView{
			Path:   f.Path,
			Href:   href(layout.SkillFile(s.Name, f.Path)),
			Size:   human.Bytes(f.Size),
			Bytes:  strconv.FormatInt(f.Size, 10),
			Digest: short(f.Digest),
			Exec:   f.Exec,
		})
	}
	v.Count, v.Size = strconv.Itoa(len(files)), human.Bytes(total)
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
			Digest: short(a.a.Digest),
		})
		if v.Fetch == "" {
			v.Fetch = "curl -LO " + human.ShellQuote(host+"/"+escape(p))
			// Two spaces: the sha256sum -c line format.
			v.Check = "echo '" + a.a.Digest.Hex() + "  " + name + "' | sha256sum -c"
		}
	}
	var err error
	if v.md, err = s.Body(); err != nil {
		return view{}, fmt.Errorf("catalog: skill %q: reading SKILL.md: %w", s.Name, err)
	}
	return v, nil
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

// csp is a page's Content-Security-Policy: no frames, no forms, no
// fetches; only the inline stylesheet and the page's own script (js; ""
// for none, left to default-src), each pinned by its hash, and images of
// the bundle itself. It backs up the Markdown renderer: even HTML that
// slipped through could not run or phone home.
func csp(css, js, base string) string {
	img := "'self'"
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		img += " " + u.Scheme + "://" + u.Host
	}
	script := ""
	if js != "" {
		script = "; script-src " + hash(js)
	}
	return "default-src 'none'; style-src " + hash(css) + script +
		"; img-src " + img + "; base-uri 'none'; form-action 'none'"
}

// hash is the CSP source that allows an inline element of exactly text.
func hash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
