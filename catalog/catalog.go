// Package catalog renders the bundle's catalog for people: index.html, the
// front page, a card per skill linking to its page, skills/<name>.html
// (layout.CatalogPage), which shows its license, files, digests, download
// links, install commands and SKILL.md as HTML. Each file is
// self-contained (the stylesheet inlined); the front page's one script,
// filter.js, is allowed by its hash, and a skill's page allows none.
//
// It must not do I/O of its own, link outside the bundle, let an untrusted
// SKILL.md body run a script, or hold every skill: New reads them once,
// keeping each name, and Render and Pages read each again. The same skills
// give the same bytes.
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
	// it once per skill, from several goroutines at once.
	Body func() ([]byte, error)
}

// Skills is the skills a catalog shows, read one at a time, so that a
// page of any size renders without holding them all.
type Skills interface {
	Len() int
	// Skill returns the i-th skill, 0 <= i < Len(), the same value on
	// every call, from several goroutines at once.
	Skill(i int) (Skill, error)
}

// Options say how the catalog addresses the bundle. The zero value gives
// relative links and the default title.
type Options struct {
	// BaseURL is the absolute URL at which dist/ is served. Empty means
	// relative links, and install commands with a placeholder host.
	BaseURL   string
	Generator string // the tool that built the bundle, shown in the footer
	Title     string // heads the page; empty means "Agent Skills"
	Publisher string // if set, shown under the title ("by Publisher")
	// Source, if set, is the absolute http or https URL of the skills'
	// source (a repository, say), linked under the title.
	Source string
}

// placeholder stands for the host in install commands when no base URL is
// known: the skills CLI and curl need an absolute URL.
const placeholder = "https://YOUR-HOST"

// hostHint is the template's paragraph, as it renders, that asks the
// reader of a page without a base URL to put the host in.
const hostHint = "\n<p class=\"hint\">Replace <code>" + placeholder + "</code> with the address this folder is served from.</p>"

// WithHost returns a page that Render made without a base URL with base
// (such as http://127.0.0.1:8080) in its install commands in place of the
// placeholder, and without the hint, links still relative: the page as a
// server that knows its address shows it. A page with no placeholder comes
// back unchanged, as does one for a base a shell would not take as one
// word ([::1] is a glob to zsh): the hint is better than a failing command.
func WithHost(page []byte, base string) []byte {
	if !bytes.Contains(page, []byte(placeholder)) || human.ShellQuote(base) != base {
		return page
	}
	page = bytes.Replace(page, []byte(hostHint), nil, 1)
	return bytes.ReplaceAll(page, []byte(placeholder), []byte(template.HTMLEscapeString(base)))
}

// page is the data of the templates: "head" and "foot" for the front
// page, "page" and "page-end" for a skill's. It embeds nothing: a template
// finds an embedded field by a search that allocates each time.
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
// contents. Letter is set on the first skill of each first letter, the
// target of the letter index.
type tocEntry struct{ Name, Description, Letter, Href string }

// entry is what a Catalog keeps of every skill.
type entry struct {
	name string
	i    int // the skill's index in Skills
}

type link struct {
	Label, Href, Note string
}

// view is one skill as the "skill" template shows it, with numbers as
// strings and nothing left to look up: each costs a template a call
// through reflection.
type view struct {
	Name, Description, License, Compatibility string
	Content                                   digest
	Files                                     []fileView
	Count, Size                               string // of all files
	Archives                                  []archiveView
	Add, MCP                                  string
	Fetch, Check                              string // curl and sha256sum -c commands of the first archive
	// md is the SKILL.md body, rendered between "page" and "page-end",
	// and files the paths its links may name.
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

// Catalog is the skills a catalog shows, checked and in name order, read
// again when rendered.
type Catalog struct {
	skills Skills
	o      Options
	idx    []entry // sorted by name
	a      assets
}

// New reads every skill once, for the checks that keep links right and
// the order of the pages. A skill that cannot be read stops it; the error
// lists every failed check.
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
		name := strings.Clone(s.Name) // not keeping alive what it was cut from
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
// every skill by name, with its description, linking its page. The first
// error stops it, leaving a truncated page.
func (c *Catalog) Render(w io.Writer) error {
	p := newPage(c.o, c.a, len(c.idx), "")
	p.JS, p.CSP = template.JS(c.a.js), csp(c.a.css, c.a.js, c.o.BaseURL)
	// Templates write in many small pieces, so the page is buffered, and
	// flushed after the head and the table of contents, and the foot.
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

// Pages renders the page of every skill and hands it to write with the
// skill's index, on two workers per CPU (SKILL.md is the slow part); the
// bytes are write's only until it returns. The first error stops the rest.
func (c *Catalog) Pages(write func(i int, page []byte) error) error {
	// Every page has the same masthead, policy, start ("meta") and end
	// ("page-end"), made once.
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
		// Pooled: thousands of pages leave no trail of grown buffers.
		buf := buffers.Get().(*bytes.Buffer)
		defer buffers.Put(buf)
		buf.Reset()
		p := shared // no script: its CSP's default-src 'none' refuses every one
		if p.Skill, err = newView(s, p.href, p.Host); err != nil {
			return err
		}
		buf.Write(meta.Bytes())
		if err := c.a.t.ExecuteTemplate(buf, "page", p); err != nil {
			return fmt.Errorf("catalog: skill %q: %w", s.Name, err)
		}
		// SKILL.md renders straight into the page: through the template
		// it would be copied three times.
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

// reread returns the skill of e again, checked again, should Skills break
// its promise of the same skill: nothing unchecked reaches the page.
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

// check returns everything in s that would make a link or id wrong;
// dup says an earlier skill has its name.
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
	// The policy pins the script's bytes: no final newline to get right.
	return assets{t, string(css), strings.TrimRight(string(js), "\n")}, nil
})

// csp is a page's Content-Security-Policy: no frames, forms or fetches;
// only the inline stylesheet and script (js; "" for none), each pinned by
// its hash, and the bundle's images. Even HTML that slipped through the
// Markdown renderer could not run or phone home.
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
