package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/skill"
)

var linkRules = []*Rule{
	{
		ID:       "link-broken",
		Title:    "A relative link or image in SKILL.md points to a file the skill does not publish",
		Severity: Warning,
		Explain: "Agents follow SKILL.md's relative links to load reference files, run scripts and open " +
			"assets; a link to a missing file sends them looking for something that is not there, and they " +
			"improvise instead. The target is checked against the files that will be published, so a link to " +
			"a file left out as junk or by .skillignore, or one whose name differs only in case (it works on " +
			"macOS and Windows, not in the archive), is broken too. URLs, #fragments and reference-style links " +
			"are understood; \"?query\" and \"#fragment\" are ignored and %20 is decoded, so a \"#\" in a file's " +
			"name is written %23, and a placeholder such as [here](...) is reported as one. Links through the " +
			"placeholders clients expand are followed: ${CLAUDE_SKILL_DIR}/ and {baseDir}/ name the skill " +
			"folder, ${CLAUDE_PLUGIN_ROOT}/ the enclosing plugin's (the nearest folder above holding " +
			"plugin.json, or one under .claude-plugin/, .codex-plugin/ or .cursor-plugin/); one that cannot be resolved, or another variable, is " +
			"not reported. Create the file or correct the link; a link written from a folder above the skill " +
			"(skills/other/SKILL.md from a collection's root) that names another skill's file is said to be " +
			"one: say in the text that the skill needs the other instead.",
		Bad:  "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\nSee [forms](references/Forms.md).\n",
		Good: "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\nSee [forms](references/forms.md).\n",
		// A link to a missing file deeper down, or one that leaves the
		// skill, is one mistake: the missing file.
		Supersedes: []string{"reference-depth", "link-outside"},
		Check:      withFiles(checkLinkBroken),
	},
	{
		ID:       "link-outside",
		Title:    "A relative link in SKILL.md leaves the skill folder",
		Severity: Warning,
		Explain: "A skill is published as its folder alone: a link such as ../shared/style.md works in the " +
			"source tree but points at nothing once the skill is installed from the archive or the bundle. " +
			"Copy the file into the skill (usually under references/) and link to the copy. A target that " +
			"does not exist at all is link-broken's.",
		Bad:   "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\nSee [style](../shared/style.md).\n",
		Good:  "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\nSee [style](references/style.md).\n",
		Check: checkLinkOutside,
	},
	{
		ID:       "link-absolute",
		Title:    "A link in SKILL.md is an absolute path or uses \\ separators",
		Severity: Warning,
		Explain: "A skill is installed into a different folder on every machine, so an absolute path " +
			"(/home/me/skill/x.md, C:\\skills\\x.md, ~/x.md, file:///...) names a file that exists only on " +
			"the author's computer. A path from a web site's root (/docs/guide, /en/setup), as documentation " +
			"copied from the site links its pages, names no file either once the skill is installed: link " +
			"to the full URL instead, or copy the page into references/. So does a path from the repository's " +
			"root (/docs/guide.md), which GitHub resolves there. Links with \"\\\" separators work on Windows only: Markdown and URLs " +
			"separate folders with \"/\". A client's command such as /hookify:writing-rules (a colon and no " +
			"other \"/\") is not a path. Write links relative to SKILL.md, with \"/\".",
		Bad:   "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\nRun [fill](scripts\\fill.py) or see [forms](/home/me/pdf-tools/references/forms.md).\n",
		Good:  "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\nRun [fill](scripts/fill.py) or see [forms](references/forms.md).\n",
		Check: checkLinkAbsolute,
	},
	{
		ID:       "reference-depth",
		Title:    "A Markdown file is reached only through another one",
		Severity: Warning,
		Explain: "The specification asks skills to keep file references one level deep from SKILL.md and to " +
			"avoid deeply nested reference chains: agents read a skill by following links from SKILL.md, " +
			"and a file reached only through another (SKILL.md → a.md → b.md) may be read partially or not " +
			"at all. Lint follows the Markdown links from SKILL.md breadth first and reports each file that " +
			"leads further once, at its first link to a Markdown file two or more links away, naming those " +
			"files: an index page linking twenty chapters is one cause, not twenty, and more than three " +
			"such files in one skill (a tree generated from an API) are one finding. A file " +
			"that SKILL.md links to, or names by its path, is one step away however deep its folder " +
			"(references/api/auth.md is fine). Link to it from SKILL.md too, or merge it into the file " +
			"that links to it.",
		Bad:   "SKILL.md:             See [the API](references/api.md).\nreferences/api.md:    Auth is in [auth](auth.md).\n",
		Good:  "SKILL.md:             See [the API](references/api.md) and [auth](references/auth.md).\nreferences/api.md:    Auth is in [auth](auth.md).\n",
		Check: withFiles(checkReferenceDepth),
	},
	{
		ID:       "file-unreferenced",
		Title:    "A file under references/, scripts/ or assets/ is never mentioned",
		Severity: Info,
		Explain: "Agents find a skill's extra files through SKILL.md and what it leads to: a file that no " +
			"file of the skill links to or names is published and downloaded but never used. Every text " +
			"file of the skill counts, Markdown, scripts and configuration, and a file is named by its path " +
			"(scripts/office/validate.py), its path below any of its folders (office/validate.py), or its " +
			"file name when that has an extension (\"run validate.py\"); a folder named with a \"/\" " +
			"(scripts/office/) or, in code, in quotes covers its files; scripts also name their siblings by " +
			"import (from helpers import x, import ooxml.validators, require(\"./lib/util\")), and a " +
			"package's __init__.py is used when a module of it is. A file naming itself does not count, " +
			"nor do dotfiles such as scripts/.gitignore. Link to the file or mention it where it is " +
			"needed, or delete it (or list it in .skillignore) if it is left over.",
		Bad:   "pdf-tools/\n  SKILL.md        (never mentions scripts/old_fill.py)\n  scripts/old_fill.py\n",
		Good:  "pdf-tools/\n  SKILL.md        (\"Run `python scripts/fill.py FORM DATA`.\")\n  scripts/fill.py\n",
		Check: withFiles(checkUnreferenced),
	},
}

// fileIndex answers "is this path published" for the link rules.
type fileIndex struct {
	paths []string          // published paths, sorted bytewise
	fold  map[string]string // lowercased path to path, for case mistakes
}

func filesOf(p *Pass) *fileIndex {
	return p.Memo("files:index", func() any {
		x := &fileIndex{fold: map[string]string{}}
		for _, f := range p.Files.Files {
			x.paths = append(x.paths, f.Path)
			x.fold[strings.ToLower(f.Path)] = f.Path
		}
		return x
	}).(*fileIndex)
}

// has reports whether a cleaned path is a published file or a folder
// holding one.
func (x *fileIndex) has(p string) bool {
	if p == "." {
		return true
	}
	if _, ok := slices.BinarySearch(x.paths, p); ok {
		return true
	}
	// "a/" sorts after "a" and before any "a/..."; a folder link needs one.
	i := sort.SearchStrings(x.paths, p+"/")
	return i < len(x.paths) && strings.HasPrefix(x.paths[i], p+"/")
}

// matches reports whether p is a glob pattern (references/*.md, which
// an agent can expand) that matches a published file.
func (x *fileIndex) matches(p string) bool {
	return strings.ContainsAny(p, "*[") && slices.ContainsFunc(x.paths, func(f string) bool {
		ok, err := path.Match(p, f)
		return ok && err == nil
	})
}

// leftOut reports whether p is in a list of left-out paths, where folders
// end in "/".
func leftOut(list []string, p string) bool {
	return slices.ContainsFunc(list, func(e string) bool {
		return e == p || e == p+"/" || strings.HasSuffix(e, "/") && strings.HasPrefix(p, e)
	})
}

func checkLinkBroken(p *Pass) {
	md, x := bodyMarkdown(p), filesOf(p)
	for _, l := range skillLinks(p) {
		switch l.kind {
		case skill.LinkPlugin:
			reportAt(p, md, l.off, "create it in the plugin or correct the link",
				"link target %s names no file of the plugin the skill belongs to", quoted(l.dest))
			continue
		case skill.LinkOutside:
			// Missing is the mistake to fix first: copying the file into
			// the skill, as link-outside asks, cannot be done.
			if _, err := os.Stat(filepath.Join(p.Skill.Dir, filepath.FromSlash(l.path))); errors.Is(err, fs.ErrNotExist) {
				reportAt(p, md, l.off, "correct the link, and link only to files inside the skill",
					"link target %s does not exist, and it would be outside the skill folder if it did", quoted(l.dest))
			}
			continue
		}
		if l.kind != skill.LinkInside || x.has(l.path) || x.matches(l.path) {
			continue
		}
		why, fix := "does not exist in the skill", "create "+l.path+" or correct the link"
		switch {
		case strings.ContainsAny(l.path, "*["):
			why, fix = "is a pattern that matches no file of the skill", "correct the pattern, or link the files it means"
		case strings.Trim(l.dest, ".…") == "":
			why, fix = "is a placeholder, not a file", "fill in the file or URL the link is for, or write the text without a link"
		case escapedHash(x, l.dest) != "":
			why = "names " + l.path + `: "#" starts a fragment, so the file whose name holds the "#" is not linked`
			fix = "write the \"#\" as %23: " + escapedHash(x, l.dest)
		case leftOut(p.Files.Junk, l.path):
			why, fix = "is junk that the build leaves out", "link to a file that is published"
		case leftOut(p.Files.Ignored, l.path):
			why, fix = "is excluded by "+skill.IgnoreFile, "remove it from "+skill.IgnoreFile+" or correct the link"
		case slices.ContainsFunc(p.Files.Refused, func(r skill.Refused) bool { return r.Path == l.path }):
			why, fix = "cannot be published", "replace it with a regular file inside the skill"
		case x.fold[strings.ToLower(l.path)] != "":
			real := x.fold[strings.ToLower(l.path)]
			why, fix = "does not exist; the file is named "+real+" (case matters in archives and on Linux)",
				"write the link as "+real
		default:
			// skills/other/SKILL.md, written from the collection's root:
			// creating it would copy the other skill into this one.
			if other := writtenFromAbove(p.Skill.Dir, l.path); other != "" {
				name := filepath.Base(other)
				why = "does not exist in the skill; written from a folder above it, it is a file of the skill " + name
				fix = fmt.Sprintf("say in the text that the skill needs %s (\"use the %s skill\") rather than linking its files", name, name)
			}
		}
		reportAt(p, md, l.off, fix, "link target %s %s", quoted(l.dest), why)
	}
}

// escapedHash returns dest with its first "#"s written %23 where that
// makes it a link to a published file (references/c%23d.md for the file
// references/c#d.md), else "".
func escapedHash(x *fileIndex, dest string) string {
	for n := 1; n <= strings.Count(dest, "#"); n++ {
		d := strings.Replace(dest, "#", "%23", n)
		if k, t := skill.ResolveLink("", d); k == skill.LinkInside && x.has(t) {
			return d
		}
	}
	return ""
}

func checkLinkOutside(p *Pass) {
	md := bodyMarkdown(p)
	for _, l := range skillLinks(p) {
		if l.kind != skill.LinkOutside {
			continue
		}
		dir, _ := filepath.Abs(p.Skill.Dir)
		target := filepath.Join(dir, filepath.FromSlash(l.path))
		// A SKILL.md inside another skill's folder (references/SKILL.md,
		// a page named so) is packed into that skill's archive, where a
		// link to the outer skill's files resolves: skill-nested reports
		// the page, and this link is no second cause.
		if outer := enclosingSkill(dir); outer != "" && below(outer, target) {
			continue
		}
		// A client's copy of a plugin's skill is published only in the
		// plugin's archives, which hold its twin's files it links to
		// (codex-skills/coach linking skills/coach/references/).
		if _, pl := p.Skill.ClientCopy(); pl != "" {
			if abs, _ := filepath.Abs(pl); below(abs, target) {
				continue
			}
		}
		// A copy of this very skill (a translation's, ja/guides/foo) is
		// no skill to install beside it.
		if other := skillHolding(target, dir); other != "" && filepath.Base(other) != filepath.Base(dir) {
			name := filepath.Base(other)
			reportAt(p, md, l.off, fmt.Sprintf("say in the text that the skill needs %s (\"use the %s skill\") rather than "+
				"linking its files, or copy what it needs under references/", name, name),
				"link target %s is in the skill %s, not this one: it needs skill %s installed beside it", quoted(l.dest), name, name)
			continue
		}
		reportAt(p, md, l.off, "copy the file into the skill, e.g. under references/, and link to the copy",
			"link target %s is outside the skill folder; it will not be in the published skill", quoted(l.dest))
	}
}

// writtenFromAbove is the other skill's folder that the skill-relative
// path rel names when read from a folder above the skill dir (up to
// MaxDepth), as a link written from a collection's root does; "" for none.
func writtenFromAbove(dir, rel string) string {
	abs, _ := filepath.Abs(dir)
	for d, n := filepath.Dir(abs), 0; n < skill.MaxDepth && d != filepath.Dir(d); d, n = filepath.Dir(d), n+1 {
		target := filepath.Join(d, filepath.FromSlash(rel))
		if _, err := os.Stat(target); err == nil {
			return skillHolding(target, abs)
		}
	}
	return ""
}

// enclosingSkill is the nearest folder above the absolute folder dir that
// holds a SKILL.md, or "".
func enclosingSkill(dir string) string {
	for d := filepath.Dir(dir); d != filepath.Dir(d); d = filepath.Dir(d) {
		if isSkillDir(d) {
			return d
		}
	}
	return ""
}

// skillHolding is the skill folder that holds the absolute path target
// below the nearest folder it shares with the skill folder dir (a sibling
// skill, or one further off), or "".
func skillHolding(target, dir string) string {
	for d := filepath.Dir(target); !below(d, dir); d = filepath.Dir(d) {
		if isSkillDir(d) {
			return d
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return ""
}

// ownTail is the longest end of the path dest, in "/" or "\" parts, that
// is a file of the skill, or "".
func ownTail(p *Pass, dest string) string {
	if p.Files == nil {
		return ""
	}
	parts := strings.FieldsFunc(dest, func(r rune) bool { return r == '/' || r == '\\' })
	for i := range parts {
		if tail := strings.Join(parts[i:], "/"); filesOf(p).has(tail) {
			return tail
		}
	}
	return ""
}

// isSkillDir reports whether a folder holds a SKILL.md.
func isSkillDir(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, skill.FileName))
	return err == nil && info.Mode().IsRegular()
}

func checkLinkAbsolute(p *Pass) {
	md := bodyMarkdown(p)
	for _, l := range skillLinks(p) {
		switch l.kind {
		case skill.LinkAbsolute:
			site, rel := sitePath(l.dest)
			switch {
			case !site:
				fix := "write the path relative to SKILL.md, e.g. references/x.md"
				if own := ownTail(p, l.dest); own != "" { // C:\Users\me\skills\x\references\guide.md
					fix = "write it relative to SKILL.md: " + own
				}
				reportAt(p, md, l.off, fix, "link target %s is a path on the author's computer; it exists only there", quoted(l.dest))
			case p.Files != nil && filesOf(p).has(rel):
				reportAt(p, md, l.off, "write it relative to SKILL.md: "+rel,
					"link target %s starts at a root, the web site's or the disk's, not the skill's; "+
						"installed, it names no file of the skill", quoted(l.dest))
			case inRepo(p.Skill.Dir, rel):
				// GitHub resolves it from the repository's root (bkinsey808/
				// songshare-effect: 201 of 211 exist there).
				reportAt(p, md, l.off, "copy it under references/ and link to the copy, or link to its page on the repository's host by full URL",
					"link target %s is a path from the repository's root, which GitHub shows; "+
						"an installed skill holds no such file", quoted(l.dest))
			default:
				reportAt(p, md, l.off, "link to the page's full URL (https://…"+l.dest+"), or copy it under references/ and link to the copy",
					"link target %s is a path from the root of a web site, as in documentation copied from it; "+
						"in an installed skill it names no file", quoted(l.dest))
			}
		case skill.LinkBackslash:
			reportAt(p, md, l.off, "separate folders with \"/\": "+strings.ReplaceAll(l.dest, `\`, "/"),
				"link target %s uses \"\\\" separators, which only Windows understands", quoted(l.dest))
		}
	}
}

// inRepo reports whether rel, a path from a root, names a file or folder
// from the root of the git work tree holding dir.
func inRepo(dir, rel string) bool {
	top, ok := skill.WorkTree(dir)
	if !ok || rel == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(top, filepath.FromSlash(rel)))
	return err == nil
}

// systemRoots are the top folders of file systems' own paths: a link
// starting with one of them is a path on someone's computer, where
// /docs/guide is a web site's page.
var systemRoots = []string{"Users", "home", "root", "tmp", "var", "etc", "opt", "usr", "mnt", "media",
	"Volumes", "private", "srv", "nix", "Library", "Applications", "System", "workspace", "workspaces", "proc", "dev"}

// sitePath reports whether an absolute link destination is a path from a
// web site's root rather than a file system's (a drive letter, "", "~/",
// file:, or a system folder such as /Users or /home), and returns it
// relative to that root, without its query or fragment.
func sitePath(dest string) (site bool, rel string) {
	if !strings.HasPrefix(dest, "/") || strings.HasPrefix(dest, "//") {
		return false, ""
	}
	rel = strings.TrimPrefix(dest, "/")
	if i := strings.IndexAny(rel, "?#"); i >= 0 {
		rel = rel[:i]
	}
	first, _, _ := strings.Cut(rel, "/")
	if slices.Contains(systemRoots, first) || len(first) == 2 && isLetter(first[0]) && first[1] == ':' {
		return false, ""
	}
	return true, path.Clean(rel)
}

func checkReferenceDepth(p *Pass) {
	if p.Doc == nil || bodyMarkdown(p) == nil {
		return
	}
	// The Markdown files a chain can go through; a nested skill's SKILL.md
	// is that skill's business.
	index := map[string]int{}
	for i, f := range p.Files.Files {
		if isMarkdown(f.Path) && path.Base(f.Path) != skill.FileName {
			index[f.Path] = i
		}
	}
	if len(index) == 0 {
		return
	}
	// via[f] is the file whose link first reached f: "" for SKILL.md.
	via := map[string]string{}
	var level []string
	reach := func(t, from string) bool {
		_, ok := index[t]
		if _, seen := via[t]; !ok || seen {
			return false
		}
		via[t] = from
		level = append(level, t)
		return true
	}
	x := filesOf(p)
	for _, l := range skillLinks(p) {
		if l.kind != skill.LinkInside || reach(l.path, "") || !x.has(l.path) {
			continue
		}
		// A link to a folder puts the files in it one step from SKILL.md.
		for _, f := range x.paths {
			if strings.HasPrefix(f, l.path+"/") {
				reach(f, "")
			}
		}
	}
	// So does a path named in SKILL.md's text ("read references/api.md"),
	// looked for only when the links leave some file unreached.
	if len(via) < len(index) {
		eachWord(p.Doc.Body, func(w []byte, _ int, _ bool) {
			if bytes.HasSuffix(w, []byte(".md")) {
				reach(path.Clean(strings.TrimLeft(string(w), "./")), "")
			}
		})
	}
	// Breadth first, so that each file is reported at its shortest chain.
	type start struct {
		f         string
		line, col int
		deeper    []string
	}
	var starts []start
	for len(level) > 0 {
		from := level
		level = nil
		for _, f := range from {
			// Parsing is most of the rule's work, and most reference files
			// link to no other Markdown file: one without ".md" cannot.
			if c := p.Content(p.Files.Files[index[f]]); c.Err != nil || !mdSuffix(c.Data) {
				continue
			}
			md := fileMarkdown(p, index[f])
			if md == nil {
				continue
			}
			// One finding per file that starts a chain, at its first
			// deeper link: the index page is the cause, however many
			// files it leads to.
			st := start{f: f}
			for _, l := range md.links {
				k, t := resolveLink(p, path.Dir(f), l.dest)
				if k != skill.LinkInside || !reach(t, f) {
					continue
				}
				if len(st.deeper) == 0 {
					st.line, st.col = md.pos(l.off)
				}
				st.deeper = append(st.deeper, t)
			}
			if len(st.deeper) > 0 {
				starts = append(starts, st)
			}
		}
	}
	if len(starts) > sameAtMost {
		// A generated tree (an API's resources, each linking its
		// operations) is one cause: one finding, at the first file, not
		// one a file (Yuyz0112/public-api-skills: 3,948 of them).
		var files, deeper []string
		for _, st := range starts {
			files = append(files, st.f)
			deeper = append(deeper, st.deeper...)
		}
		st := starts[0]
		p.Reportf(st.f, st.line, st.col, fmt.Sprintf("link to the files they lead to from %s too, or merge each into the file that links to it", p.Skill.File),
			"%d files (%s) lead to %d Markdown files reached only through them (such as %s); agents read a skill's files one link away from %s, "+
				"and may read those partially or not at all", len(files), human.Few(files, 3), len(deeper), chain(via, deeper[0], p.Skill.File), p.Skill.File)
		return
	}
	for _, st := range starts {
		is, them := "is", "it"
		if len(st.deeper) > 1 {
			is, them = "are", "them"
		}
		named := human.Few(st.deeper, 3)
		fix := fmt.Sprintf("link to %s from %s too, or merge %s into %s", named, p.Skill.File, them, st.f)
		if len(st.deeper) > 3 {
			fix = fmt.Sprintf("link to each Markdown file %s links to from %s too, or merge them into %s", st.f, p.Skill.File, st.f)
		}
		p.Reportf(st.f, st.line, st.col, fix, "%s %s reached only through %s (%s); agents read a skill's files one link away from %s, "+
			"and may read %s partially or not at all", named, is, st.f, chain(via, st.deeper[0], p.Skill.File), p.Skill.File, them)
	}
}

// mdSuffix reports whether text holds a Markdown file name's extension.
func mdSuffix(data []byte) bool {
	return bytes.Contains(data, []byte(".md")) || bytes.Contains(data, []byte(".markdown")) || bytes.Contains(data, []byte(".MD"))
}

// chain spells the links from SKILL.md to f: "SKILL.md → a.md → b.md".
func chain(via map[string]string, f, entry string) string {
	steps := []string{f}
	for f = via[f]; f != ""; f = via[f] {
		steps = append(steps, f)
	}
	steps = append(steps, entry)
	slices.Reverse(steps)
	return strings.Join(steps, " → ")
}

func checkUnreferenced(p *Pass) {
	if p.Doc == nil {
		return
	}
	x := newRefIndex(p.Files.Files)
	if x.left == 0 {
		return
	}
	x.entry = p.Skill.File
	for _, l := range skillLinks(p) {
		if l.kind == skill.LinkInside {
			x.mark(x.names[l.path])
			x.usedDirs[l.path] = true
		}
	}
	// Reading the skill's other files is most of this rule's work, and
	// SKILL.md often names every file already: once each one is
	// referenced, nothing read after can change the verdict, "all used".
	// So SKILL.md goes first (the whole file, not only the body: frontmatter
	// such as "allowed-tools: Bash(python scripts/fill.py)" uses a file
	// too), then the other Markdown files, then scripts and the rest.
	if x.settled() {
		return
	}
	x.read(p.Skill.File, p.Doc.Raw)
	for _, pass := range []func(string) bool{isMarkdown, isSource} {
		for _, f := range p.Files.Files {
			if x.settled() {
				return
			}
			if f.Path == p.Skill.File || !pass(f.Path) {
				continue
			}
			if c := p.Content(f); c.Err == nil && !binaryData(c.Data) && x.could(f.Path, c.Data) {
				x.read(f.Path, c.Data)
			}
		}
	}
	for i, f := range x.files {
		if !x.referenced(i) {
			p.Reportf(f, 0, 0, "link to it or mention its path in SKILL.md, or delete it if it is left over",
				"the file is not linked or mentioned by any file of the skill, by its path or its file name")
		}
	}
}

// resource reports whether a path lies under one of the spec's folders.
func resource(p string) bool {
	return slices.ContainsFunc(resourceDirs, func(d string) bool { return strings.HasPrefix(p, d) })
}

// codeExts are the extensions of source files that name their siblings
// without an extension ("./lib/util" in JavaScript) or as modules.
var codeExts = wordSet(".py .js .mjs .cjs .ts .mts .cts .jsx .tsx")

// moreSourceExts are text files beyond textExts whose contents can name
// other files of a skill: code, templates and configuration.
var moreSourceExts = wordSet(".mjs .cjs .mts .cts .jsx .tsx .rb .pl .php .go .rs .java .kt .swift .c .h " +
	".cpp .cs .r .lua .ps1 .bat .cmd .sql .ini .cfg .conf .j2 .jinja .tmpl .tpl .hbs .mustache .bash .zsh " +
	".fish .mdx .htm .jsonc .xsl .xslt .xsd")

// isSource reports whether a file other than Markdown is read for the
// names it uses.
func isSource(rel string) bool {
	return !isMarkdown(rel) && (isTextPath(rel) || moreSourceExts[strings.ToLower(path.Ext(rel))])
}

// refIndex knows the names a text may use for a skill's resource files,
// and which of them some text has used. A file is named by its path, its
// path below any of its folders ("office/validate.py", "validate.py", as a
// script beside it or a document in references/ would write it), or its
// base name when that has an extension (a name without one, "run" or
// "LICENSE", is too common a word); a folder by its path, or its name with
// a "/"; a code file also by its path without extension after "./" or
// "../", as JavaScript imports it, and by a Python module name.
type refIndex struct {
	files    []string            // the resource files, in p.Files order
	used     []bool              // named by some text
	left     int                 // files not known to be used
	names    map[string][]int    // a name of a file → the files
	bare     map[string][]int    // a code file's name without extension → the files
	dirs     map[string][]string // a name of a folder → the folders
	usedDirs map[string]bool     // folders named, whose files are all used
	self     string              // the file being read: it does not make itself used
	entry    string              // SKILL.md, read as Markdown
}

func newRefIndex(files []skill.File) *refIndex {
	x := &refIndex{names: map[string][]int{}, bare: map[string][]int{}, dirs: map[string][]string{}, usedDirs: map[string]bool{}}
	for _, f := range files {
		// A dotfile (scripts/.gitignore) configures a tool, not the agent.
		if !resource(f.Path) || strings.HasPrefix(path.Base(f.Path), ".") {
			continue
		}
		i := len(x.files)
		x.files = append(x.files, f.Path)
		base := path.Base(f.Path)
		ext := path.Ext(base)
		for s := range tails(f.Path) {
			if strings.Contains(s, "/") || ext != "" && ext != base && base != "__init__.py" {
				x.names[s] = append(x.names[s], i)
			}
		}
		if codeExts[ext] {
			for s := range tails(strings.TrimSuffix(f.Path, ext)) {
				x.bare[s] = append(x.bare[s], i)
			}
		}
		// Every folder, by its paths and its name with a "/": a skill that
		// says "examples are in scripts/" points at all of them.
		for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
			if _, ok := x.dirs[d]; ok {
				break
			}
			for key := range tails(d) {
				if !strings.Contains(key, "/") {
					key += "/"
				}
				if !slices.Contains(x.dirs[key], d) {
					x.dirs[key] = append(x.dirs[key], d)
				}
			}
		}
	}
	x.used = make([]bool, len(x.files))
	x.left = len(x.files)
	return x
}

func (x *refIndex) mark(files []int) {
	for _, i := range files {
		if !x.used[i] && x.files[i] != x.self {
			x.used[i] = true
			x.left--
		}
	}
}

func (x *refIndex) markDirs(dirs []string) {
	for _, d := range dirs {
		if !strings.HasPrefix(x.self, d+"/") {
			x.usedDirs[d] = true
		}
	}
}

// read marks the files that the text of the file rel names.
func (x *refIndex) read(rel string, src []byte) {
	x.self = rel
	code := !isMarkdown(rel) && rel != x.entry
	var prev []byte
	eachWord(src, func(w []byte, at int, newline bool) {
		// "python -m office.unpack" runs office/unpack.py.
		if !newline && string(prev) == "-m" {
			x.module(string(w))
		}
		prev = w
		x.word(w)
		// Code builds paths from folder names in quotes: Path(__file__).parent
		// / "config", Join-Path $PSScriptRoot 'cache-generator'.
		if code && at > 0 && at+len(w) < len(src) && (src[at-1] == '"' || src[at-1] == '\'') && src[at+len(w)] == src[at-1] {
			x.markDirs(x.dirs[string(w)+"/"])
		}
	})
	if strings.HasSuffix(rel, ".py") {
		pythonImports(src, x.module)
	}
	// A name with a space is no word: it is looked for whole.
	for i, f := range x.files {
		if base := path.Base(f); !x.used[i] && strings.Contains(base, " ") && path.Ext(base) != "" &&
			(bytes.Contains(src, []byte(f)) || bytes.Contains(src, []byte(base))) {
			x.mark([]int{i})
		}
	}
	x.self = ""
}

// could reports whether the text of the file rel can name a file not yet
// known to be used, as read would find it. Every name of a file holds its
// stem, the base name less the extension ("unpack" of office.unpack,
// ./unpack and scripts/unpack.py), or for __init__.py its folder's name; a
// folder's names hold its name and a "/" (scripts/, or a path below the
// folder above it, whose name and "/" that is), in code also its name in
// quotes, and for one whose name ends in .py, its stem. Most of a
// skill's text names none of the few files left, and looking for them
// costs a small part of reading it word by word. With many left, it reads.
func (x *refIndex) could(rel string, src []byte) bool {
	code := !isMarkdown(rel) && rel != x.entry
	stem := func(p string) string {
		if path.Base(p) == "__init__.py" {
			return path.Base(path.Dir(p))
		}
		return strings.TrimSuffix(path.Base(p), path.Ext(p))
	}
	var needles []string
	for i, f := range x.files {
		if x.used[i] {
			continue
		}
		needles = append(needles, stem(f))
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			name := path.Base(d)
			if code {
				needles = append(needles, name)
			} else {
				needles = append(needles, name+"/")
			}
			if path.Ext(name) == ".py" {
				needles = append(needles, stem(d))
			}
		}
		if len(needles) > 8 { // each look costs about a tenth of reading the text
			return true
		}
	}
	return slices.ContainsFunc(needles, func(n string) bool {
		return n == "" || n == "." || bytes.Contains(src, []byte(n))
	})
}

// word marks the files and folders a word of text names.
func (x *refIndex) word(w []byte) {
	if bytes.IndexByte(w, '.') < 0 && bytes.IndexByte(w, '/') < 0 {
		return
	}
	relative := bytes.HasPrefix(w, []byte("./")) || bytes.HasPrefix(w, []byte("../"))
	folder := len(w) > 1 && w[len(w)-1] == '/'
	w = bytes.TrimRight(w, "/")
	for s := w; len(s) > 0; {
		j := bytes.IndexByte(s, '/')
		x.mark(x.names[string(s)])
		// "./lib/util" and "scripts/check_fields" name code files without
		// their extension; "util" alone is just a word.
		if relative || j >= 0 {
			x.mark(x.bare[string(s)])
		}
		if j < 0 {
			if folder {
				x.markDirs(x.dirs[string(s)+"/"])
			}
			break
		}
		x.markDirs(x.dirs[string(s)])
		s = s[j+1:]
	}
}

// module marks the file a Python module name names: ooxml.validators is
// ooxml/validators.py or ooxml/validators/__init__.py.
func (x *refIndex) module(m string) {
	m = strings.TrimLeft(m, ".")
	if m == "" || strings.ContainsAny(m, "/-") {
		return
	}
	p := strings.ReplaceAll(m, ".", "/")
	x.word([]byte(p + ".py"))
	x.word([]byte(p + "/__init__.py"))
}

// pythonImports calls fn with the modules that Python source imports:
// "import a.b, c as d" imports a.b and c, and "from a import b" a, or
// a.b when b is a module.
func pythonImports(src []byte, fn func(module string)) {
	for len(src) > 0 {
		line, rest, _ := bytes.Cut(src, []byte("\n"))
		src = rest
		t, _, _ := strings.Cut(string(bytes.TrimSpace(line)), "#")
		from := ""
		if r, ok := strings.CutPrefix(t, "from "); ok {
			if from, t, ok = strings.Cut(strings.TrimSpace(r), " import "); !ok {
				continue
			}
			fn(from)
		} else if r, ok := strings.CutPrefix(t, "import "); ok {
			t = r
		} else {
			continue
		}
		for _, name := range strings.Split(strings.Trim(t, " ()\\"), ",") {
			name, _, _ = strings.Cut(strings.TrimSpace(name), " ")
			if name == "" || name == "*" {
				continue
			}
			if from != "" {
				name = strings.TrimRight(from, ".") + "." + name
			}
			fn(name)
		}
	}
}

// settled reports whether every file is known to be used.
func (x *refIndex) settled() bool {
	if x.left > 0 && len(x.usedDirs) > 0 {
		for i := range x.files {
			if !x.used[i] && x.referenced(i) {
				x.used[i] = true
				x.left--
			}
		}
	}
	return x.left == 0
}

// referenced reports whether file i, a folder above it, or, for a
// package's __init__.py, any file of the package was named: Python runs
// __init__.py whenever it imports a module of the package.
func (x *refIndex) referenced(i int) bool {
	if x.used[i] {
		return true
	}
	f := x.files[i]
	for d := path.Dir(f); d != "."; d = path.Dir(d) {
		if x.usedDirs[d] {
			return true
		}
	}
	if path.Base(f) == "__init__.py" {
		pkg := path.Dir(f) + "/"
		for j, g := range x.files {
			if j != i && x.used[j] && strings.HasPrefix(g, pkg) {
				return true
			}
		}
	}
	return false
}

// quoted puts a destination in quotes as written, backslashes and all,
// unless it holds characters a terminal should not see raw.
func quoted(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return `"` + s + `"`
}
