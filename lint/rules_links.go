package lint

import (
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/skillpack/skillpack/skill"
)

var linkRules = []*Rule{
	{
		ID:       "link-broken",
		Title:    "A relative link or image in SKILL.md points to a file the skill does not publish",
		Category: CatContent,
		Severity: Warning,
		Explain: "Agents follow SKILL.md's relative links to load reference files, run scripts and open " +
			"assets; a link to a missing file sends them looking for something that is not there, and they " +
			"improvise instead. The target is checked against the files that will be published, so a link to " +
			"a file left out as junk or by .skillignore, or one whose name differs only in case (it works on " +
			"macOS and Windows, not in the archive), is broken too. URLs, #fragments and reference-style links " +
			"are understood; \"?query\" and \"#fragment\" are ignored and %20 is decoded. Create the file or " +
			"correct the link.",
		Bad:   "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\nSee [forms](references/Forms.md).\n",
		Good:  "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\nSee [forms](references/forms.md).\n",
		Check: checkLinkBroken,
	},
	{
		ID:       "link-outside",
		Title:    "A relative link in SKILL.md leaves the skill folder",
		Category: CatContent,
		Severity: Warning,
		Explain: "A skill is published as its folder alone: a link such as ../shared/style.md works in the " +
			"source tree but points at nothing once the skill is installed from the archive or the bundle. " +
			"Copy the file into the skill (usually under references/) and link to the copy.",
		Bad:   "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\nSee [style](../shared/style.md).\n",
		Good:  "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\nSee [style](references/style.md).\n",
		Check: checkLinkOutside,
	},
	{
		ID:       "link-absolute",
		Title:    "A link in SKILL.md is an absolute path or uses \\ separators",
		Category: CatContent,
		Severity: Warning,
		Explain: "A skill is installed into a different folder on every machine, so an absolute path " +
			"(/home/me/skill/x.md, C:\\skills\\x.md, ~/x.md, file:///...) names a file that exists only on " +
			"the author's computer. Links with \"\\\" separators work on Windows only: Markdown and URLs " +
			"separate folders with \"/\". Write links relative to SKILL.md, with \"/\".",
		Bad:   "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\nRun [fill](scripts\\fill.py) or see [forms](/home/me/pdf-tools/references/forms.md).\n",
		Good:  "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\nRun [fill](scripts/fill.py) or see [forms](references/forms.md).\n",
		Check: checkLinkAbsolute,
	},
	{
		ID:       "reference-depth",
		Title:    "SKILL.md links to a file more than one folder deep",
		Category: CatContent,
		Severity: Warning,
		Explain: "The specification asks skills to keep file references one level deep from SKILL.md " +
			"(references/api.md, not references/api/v2/endpoints.md): agents read a skill by following its " +
			"links, and deep trees make them read partially or lose their way. Move the file up to a folder " +
			"directly below the skill, such as references/.",
		Bad:   "---\nname: api-guide\ndescription: Call the billing API correctly.\n---\nSee [endpoints](references/api/v2/endpoints.md).\n",
		Good:  "---\nname: api-guide\ndescription: Call the billing API correctly.\n---\nSee [endpoints](references/endpoints-v2.md).\n",
		Check: checkReferenceDepth,
	},
	{
		ID:       "file-unreferenced",
		Title:    "A file under references/, scripts/ or assets/ is never mentioned",
		Category: CatContent,
		Severity: Info,
		Explain: "Agents find a skill's extra files through SKILL.md: a file that no Markdown file of the " +
			"skill links to, and whose path (such as scripts/fill.py) appears nowhere in their text or code " +
			"blocks, is published and downloaded but never used. Link to it or mention its path where it is " +
			"needed, or delete it (or list it in .skillignore) if it is left over.",
		Bad:   "pdf-tools/\n  SKILL.md        (never mentions scripts/old_fill.py)\n  scripts/old_fill.py\n",
		Good:  "pdf-tools/\n  SKILL.md        (\"Run `python scripts/fill.py FORM DATA`.\")\n  scripts/fill.py\n",
		Check: checkUnreferenced,
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
	i := sort.SearchStrings(x.paths, p)
	if i < len(x.paths) && x.paths[i] == p {
		return true
	}
	// "a/" sorts after "a" and before any "a/..."; a folder link needs one.
	i = sort.SearchStrings(x.paths, p+"/")
	return i < len(x.paths) && strings.HasPrefix(x.paths[i], p+"/")
}

// leftOut reports whether p is in a list of left-out paths, where folders
// end in "/".
func leftOut(list []string, p string) bool {
	return slices.ContainsFunc(list, func(e string) bool {
		return e == p || e == p+"/" || strings.HasSuffix(e, "/") && strings.HasPrefix(p, e)
	})
}

func checkLinkBroken(p *Pass) {
	if p.Files == nil {
		return
	}
	md, x := bodyMarkdown(p), filesOf(p)
	for _, l := range skillLinks(p) {
		if l.kind != targetInside || x.has(l.path) {
			continue
		}
		why, fix := "does not exist in the skill", "create "+l.path+" or correct the link"
		switch {
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
		}
		reportAt(p, md, l.off, fix, "link target %s %s", quoted(l.dest), why)
	}
}

func checkLinkOutside(p *Pass) {
	md := bodyMarkdown(p)
	for _, l := range skillLinks(p) {
		if l.kind == targetOutside {
			reportAt(p, md, l.off, "copy the file into the skill, e.g. under references/, and link to the copy",
				"link target %s is outside the skill folder; it will not be in the published skill", quoted(l.dest))
		}
	}
}

func checkLinkAbsolute(p *Pass) {
	md := bodyMarkdown(p)
	for _, l := range skillLinks(p) {
		switch l.kind {
		case targetAbsolute:
			reportAt(p, md, l.off, "write the path relative to SKILL.md, e.g. references/x.md",
				"link target %s is an absolute path; it exists only on the author's machine", quoted(l.dest))
		case targetBackslash:
			reportAt(p, md, l.off, "separate folders with \"/\": "+strings.ReplaceAll(l.dest, `\`, "/"),
				"link target %s uses \"\\\" separators, which only Windows understands", quoted(l.dest))
		}
	}
}

func checkReferenceDepth(p *Pass) {
	md := bodyMarkdown(p)
	for _, l := range skillLinks(p) {
		if l.kind == targetInside && strings.Count(l.path, "/") > 1 {
			reportAt(p, md, l.off, "move the file into a folder directly below the skill, such as references/",
				"link target %s is %d folders below SKILL.md; keep file references one level deep",
				quoted(l.dest), strings.Count(l.path, "/"))
		}
	}
}

func checkUnreferenced(p *Pass) {
	if p.Files == nil || p.Doc == nil {
		return
	}
	// Without every link known, every file would look unused.
	if md := bodyMarkdown(p); md != nil && md.partial {
		return
	}
	refs := map[string]bool{}
	for _, l := range skillLinks(p) {
		if l.kind == targetInside {
			refs[l.path] = true
		}
	}
	// Reading the other Markdown files is most of this rule's work, and
	// SKILL.md often links or names every file already: once each one is
	// referenced, nothing read after can change the verdict, "all used".
	var pending []string // resources not known to be referenced yet
	for _, f := range p.Files.Files {
		if resource(f.Path) {
			pending = append(pending, f.Path)
		}
	}
	settled := func() bool {
		pending = slices.DeleteFunc(pending, func(rel string) bool { return referenced(refs, rel) })
		return len(pending) == 0
	}
	if settled() {
		return
	}
	// The whole file, not only the body: frontmatter such as
	// "allowed-tools: Bash(python scripts/fill.py)" uses a file too.
	mentions(p.Doc.Raw, refs)
	for i, f := range p.Files.Files {
		if f.Path == p.Skill.File || !isMarkdown(f.Path) {
			continue
		}
		if settled() {
			return
		}
		md := fileMarkdown(p, i)
		if md == nil {
			continue
		}
		if md.partial {
			return
		}
		// A file that names itself does not make itself used.
		own := map[string]bool{}
		dir := path.Dir(f.Path)
		for _, l := range md.links {
			if k, t := resolve(dir, l.dest); k == targetInside {
				own[t] = true
			}
		}
		mentions(md.src, own)
		delete(own, f.Path)
		for t := range own {
			refs[t] = true
		}
	}
	for _, f := range p.Files.Files {
		if resource(f.Path) && !referenced(refs, f.Path) {
			p.Reportf(f.Path, 0, 0, "link to it or mention "+f.Path+" in SKILL.md, or delete it if it is left over",
				"%s is not linked or mentioned by any Markdown file of the skill", f.Path)
		}
	}
}

// resource reports whether a path lies under one of the spec's folders.
func resource(p string) bool {
	return slices.ContainsFunc(resourceDirs, func(d string) bool { return strings.HasPrefix(p, d) })
}

// referenced reports whether p or a folder above it (a link to
// "references/") was linked or mentioned.
func referenced(refs map[string]bool, p string) bool {
	for ; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		if refs[p] {
			return true
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
