package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"net/http"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/plugin"
	"github.com/skillpack/skillpack/skill"
)

// The strictest readers' limits (bundle.md, "Limits"): MCP hosts take
// skill.MCPMaxFiles files and skill.MCPMaxBytes per skill, the Vercel
// skills CLI 1000 files (it skips a skill of more without a word),
// fast-agent 256 KiB of SKILL.md and 10 MiB for any file.
const (
	maxVercelFiles = 1000
	maxEntryBytes  = 256 << 10
	maxFileBytes   = 10 << 20
)

var fileRules = []*Rule{
	{
		ID:       "symlink",
		Title:    "symbolic link in the skill",
		Severity: Warning,
		Explain: "A symbolic link whose target lies in the repository (the git work tree holding the " +
			"skill) is published as a copy of its target: archives and the discovery tree hold regular " +
			"files only, as the Vercel skills CLI and Claude Code install links. Tools that copy the " +
			"folder as it is do not do that: git on Windows checks a link out as a small text file " +
			"holding the target path, and zip uploads and some installers drop links or keep them " +
			"dangling. Replace the link with the file (or folder) itself.",
		Bad:   "pdf/\n  SKILL.md\n  reference.md -> docs/reference.md\n  docs/reference.md",
		Good:  "pdf/\n  SKILL.md\n  docs/reference.md   (SKILL.md links to docs/reference.md)",
		Check: withFiles(checkSymlink),
	},
	{
		ID:       "symlink-escape",
		Title:    "symbolic link that leaves the repository, or a broken one",
		Severity: Error,
		Explain: "A symbolic link whose target is outside the repository (the git work tree holding the " +
			"skill; outside git, the skill folder), does not exist, or loops back on a folder holding " +
			"the skill cannot be published: the build refuses it, since following links out of the " +
			"checkout (to ~/.aws, /etc) could publish files the author never meant to share, and no " +
			"clone holds a broken one's target. Copy the file into the repository, or remove the link.",
		Bad:   "pdf/\n  SKILL.md\n  forms.md -> /home/me/shared/forms.md",
		Good:  "pdf/\n  SKILL.md\n  forms.md -> ../../shared/forms.md   (a file of the repository)",
		Check: withFiles(checkSymlinkEscape),
	},
	{
		ID:       "file-not-regular",
		Title:    "named pipe, socket or device inside the skill",
		Severity: Error,
		Explain: "Archives and the discovery tree hold regular files only, so the build refuses a named " +
			"pipe, socket or device file in a skill folder (reading a named pipe would also block the " +
			"build). Remove it, or list it in .skillignore if a tool keeps creating it.",
		Bad:   "pdf/\n  SKILL.md\n  scripts/server.sock   (a socket)",
		Good:  "pdf/\n  SKILL.md\n  scripts/server.py",
		Check: withFiles(checkNotRegular),
	},
	{
		ID:       "file-unreadable",
		Title:    "file or folder that cannot be read",
		Severity: Error,
		Explain: "A file or folder of the skill that cannot be read (permissions, a file that vanished " +
			"during the run, or a folder too large to list) cannot be published; lint reports it " +
			"instead of failing the whole run. Make it readable (chmod a+r), or list it in " +
			".skillignore. An unreadable SKILL.md is reported by the entry file's own rule.",
		Bad:   "pdf/\n  SKILL.md\n  forms.md   (mode 0000)",
		Good:  "pdf/\n  SKILL.md\n  forms.md   (mode 0644)",
		Check: withFiles(checkUnreadable),
	},
	{
		ID:       "junk-file",
		Title:    "junk file that the build leaves out",
		Severity: Warning,
		Explain: "Files that tools leave behind (.DS_Store, Thumbs.db, __pycache__/, *.pyc, editor swap " +
			"and backup files, nested .git folders, Windows' FILE:Zone.Identifier streams copied out as files) are never " +
			"published: the build leaves them out. So " +
			"are dotenv files (.env, .env.local; not .env.example and the like), whose values are the " +
			"credentials of whoever made them. " +
			"They are reported because they usually mean the folder is not what the author thinks " +
			"it is. Delete them, or list them in .skillignore to say they are meant to stay. A skill " +
			"whose folder is a repository's root (it holds .git) leaves out that .git and its .github/ " +
			"too, the repository's and not the skill's, without a finding.",
		Bad:   "pdf/\n  SKILL.md\n  .DS_Store\n  scripts/__pycache__/fill.cpython-312.pyc",
		Good:  "pdf/\n  .skillignore   (.DS_Store and __pycache__/)\n  SKILL.md\n  scripts/fill.py",
		Check: withFiles(checkJunk),
	},
	{
		ID:       "file-git-ignored",
		Title:    "published file that git ignores",
		Severity: Warning,
		Explain: "A file git ignores (by .gitignore, .git/info/exclude or the global excludes) is in no clone " +
			"of the repository: the clients that install from the repository never see it, and a build from " +
			"a fresh checkout (CI) publishes the skill without it, while a build from this folder publishes " +
			"it: node_modules/, a local .env, an editor's settings. In a git work tree lint asks git which " +
			"published files it ignores, in a skill's folder and in a plugin's, and of a link, whether it ignores " +
			"the link's target. Leave such a file out with " +
			".skillignore; one meant to be published (made by a build step) is tracked with git add -f, or " +
			"the rule is turned off in skillpack.yaml.",
		Bad:      "pdf/\n  SKILL.md\n  scripts/node_modules/   (in .gitignore)",
		Good:     "pdf/\n  .skillignore   (scripts/node_modules/)\n  SKILL.md\n  scripts/package.json",
		Check:    withFiles(checkGitIgnored),
		CheckRun: checkPluginGitIgnored,
	},
	{
		ID:       "path-collision",
		Title:    "paths that differ only in letter case or Unicode normalization",
		Severity: Error,
		Publish:  true,
		Explain: "Two published paths that differ only in letter case (README.md and readme.md) are one " +
			"file on the case-insensitive file systems of macOS and Windows, and two paths that " +
			"differ only in Unicode normalization (é as one code point, NFC, or as e plus a combining " +
			"accent, NFD) are one file on macOS: installing the skill there silently overwrites one " +
			"with the other. The same holds for a file and a folder (notes and Notes/). Rename or " +
			"merge them. " +
			"A plugin's files outside its skills are checked too: the build leaves out a plugin whose archive cannot hold them.",
		Bad:      "pdf/\n  SKILL.md\n  reference.md\n  Reference.md",
		Good:     "pdf/\n  SKILL.md\n  reference.md\n  reference-forms.md",
		Check:    withFiles(checkPathCollision),
		CheckRun: inPlugins(pathCollisions),
	},
	{
		ID:       "path-windows",
		Title:    "file or folder name that Windows cannot create",
		Severity: Warning,
		Explain: "Windows refuses names that contain < > : \" | ? * \\ or control characters, strips a " +
			"trailing dot or space, and reserves the device names CON, PRN, AUX, NUL, COM0–COM9 " +
			"and LPT0–LPT9 in any case and with any extension (aux.md is AUX). A skill with such a " +
			"name fails to install, or installs with a file missing, on Windows. Rename the file or " +
			"folder and update the links to it.",
		Bad:   "pdf/\n  SKILL.md\n  aux.md\n  notes: forms.md",
		Good:  "pdf/\n  SKILL.md\n  auxiliary.md\n  notes-forms.md",
		Check: withFiles(checkPathWindows),
	},
	{
		ID:       "path-too-long",
		Title:    "path too long for a USTAR tar header",
		Severity: Error,
		Publish:  true,
		Explain: "The build writes USTAR tar archives, because the skills CLI reads neither PAX nor GNU " +
			"long names. A USTAR header holds a path of at most 100 bytes, or one split at a \"/\" " +
			"into a folder part of at most 155 bytes and a name of at most 100 bytes; a longer path " +
			"cannot be packed. The limits are in UTF-8 bytes, not characters: a Chinese, Japanese or " +
			"Korean character takes three, so a file name holds at most 33 of them. Shorten the " +
			"folder or file names (the last element alone must fit in 100 bytes). The build refuses such a skill, so " +
			"lint reports it as an error whatever severity the rule is given. " +
			"A plugin's files outside its skills are checked too: the build leaves out a plugin whose archive cannot hold them.",
		Bad:      "pdf/\n  SKILL.md\n  references/<a 120-byte file name>.md",
		Good:     "pdf/\n  SKILL.md\n  references/forms.md",
		Check:    withFiles(checkPathTooLong),
		CheckRun: inPlugins(pathsTooLong),
	},
	{
		ID:       "path-unpackable",
		Title:    "path that a tar archive cannot hold",
		Severity: Error,
		Publish:  true,
		Explain: "A file name may be in any script (参考/说明.md, références/café.md, a macOS screenshot " +
			"name with a U+202F before \"AM\"): archives carry it as its UTF-8 bytes, as written, in the " +
			"USTAR header's own fields and with the zip's UTF-8 flag, and GNU tar, bsdtar, unzip, " +
			"Python, Go and the skills CLI all extract it unchanged. The build refuses what no archive " +
			"should carry: bytes that are not UTF-8 (a name in Latin-1 or Shift JIS, which every reader " +
			"would spell differently), control characters (an escape sequence in a name acts on the " +
			"terminal that lists the archive, a newline breaks every list of files), line separators, " +
			"and the bidirectional controls U+202A–U+202E and U+2066–U+2069, which show a name in " +
			"another order than it is (notes<U+202E>dm.exe shows as notesexe.md), a backslash, a " +
			"separator on Windows, and a leading drive letter (C:notes.md), which Windows takes for " +
			"another drive. Rename the file (the fix suggests a name without them) and update " +
			"the links to it. A USTAR header also holds a file's size in 11 octal digits, so a file " +
			"of 8 GiB or more cannot be packed either: leave it out with .skillignore and fetch it at " +
			"run time. The build refuses such a skill, so lint reports it as an error whatever severity the " +
			"rule is given. " +
			"A plugin's files outside its skills are checked too: the build leaves out a plugin whose archive cannot hold them.",
		Bad:      "pdf/\n  SKILL.md\n  references/notes<U+202E>dm.exe\n  references/caf\\xe9.md   (Latin-1)",
		Good:     "pdf/\n  SKILL.md\n  references/notes.md\n  references/café.md   (UTF-8)",
		Check:    withFiles(checkPathPackable),
		CheckRun: inPlugins(pathsPackable),
	},
	{
		ID:       "text-encoding",
		Title:    "text file that is not UTF-8, or starts with a byte order mark",
		Severity: Warning,
		Explain: "Clients decode a skill's text files as UTF-8: invalid bytes (Latin-1 or Windows-1252 " +
			"text, UTF-16) become U+FFFD or fail to load, and a byte order mark ends up in front of " +
			"the first line, where it breaks shebangs and JSON parsers; MCP servers also serve such " +
			"a file as a binary blob instead of text. Files are judged by extension (.md .txt .py " +
			".sh .js .ts .json .yaml .yml .toml .html .css .csv .xml, and extension-less files under " +
			"scripts/). Re-save the file as UTF-8 (iconv -f WINDOWS-1252 -t UTF-8 for Windows-1252 text); " +
			"skillpack lint --fix removes a UTF-8 byte order mark, which a .csv may keep (Excel reads a CSV " +
			"as UTF-8 only with one). A file of NUL bytes and nothing else lost its text (an interrupted copy " +
			"or sync): restore it. SKILL.md has rules of its own.",
		Bad:   "pdf/\n  SKILL.md\n  reference.md   (Windows-1252: caf\\xe9)",
		Good:  "pdf/\n  SKILL.md\n  reference.md   (UTF-8: caf\\xc3\\xa9)",
		Check: withFiles(checkTextEncoding),
	},
	{
		ID:       "lfs-pointer",
		Title:    "file is a Git LFS pointer, not the file it stands for",
		Severity: Error,
		Explain: "A repository that keeps large files in Git LFS holds small pointer texts in their place " +
			"(version https://git-lfs.github.com/spec/v1, an oid and a size) until git lfs pull fetches " +
			"them, and a checkout without LFS, such as actions/checkout's default (lfs: false), has only " +
			"the pointers. Published, every client installs a text of some 130 bytes where an image, a PDF " +
			"or a script should be. Run git lfs pull before building; in GitHub Actions, give " +
			"actions/checkout lfs: true (the workflow skillpack init --ci github writes does, where " +
			".gitattributes uses LFS).",
		Bad:   "pdf/\n  SKILL.md\n  assets/form.png   (version https://git-lfs.github.com/spec/v1 ...)",
		Good:  "pdf/\n  SKILL.md\n  assets/form.png   (the image, after git lfs pull)",
		Check: withFiles(checkLFSPointers),
	},
	{
		ID:       "script-crlf",
		Title:    "script with Windows (CRLF) line endings",
		Severity: Warning,
		Explain: "On Linux and macOS a carriage return is part of the line: a shebang \"#!/usr/bin/env " +
			"bash\" followed by CRLF runs \"bash\\r\" (\"/usr/bin/env: 'bash\\r': No such file or " +
			"directory\"), and a shell reads the \\r into every command. Python, Node, Ruby and the like " +
			"read CRLF source as LF, so a script of theirs breaks only by its shebang. The build never " +
			"rewrites bytes, so convert scripts under scripts/ to LF (dos2unix, or \"scripts/** text " +
			"eol=lf\" in .gitattributes). Windows scripts (.bat, .cmd, .ps1) are exempt, and so are documents " +
			"and data beside the scripts (README.md, requirements.txt, config.json) that have no shebang.",
		Bad:   "pdf/\n  SKILL.md\n  scripts/fill.sh   (#!/bin/sh\\r\\n...)",
		Good:  "pdf/\n  SKILL.md\n  scripts/fill.sh   (#!/bin/sh\\n...)",
		Check: withFiles(checkScriptCRLF),
	},
	{
		ID:       "script-not-executable",
		Title:    "script with a shebang but no execute bit",
		Severity: Warning,
		Explain: "A file under scripts/ that starts with \"#!\" is meant to be run, and archives carry " +
			"mode 0755 only for files with an execute bit in the source. Set it (chmod +x, and " +
			"git update-index --chmod=+x on Windows). Some clients, the skills CLI among them, " +
			"install every file 0644 whatever the archive says, so SKILL.md should still run the " +
			"script through its interpreter: \"sh scripts/fill.sh\", \"python3 scripts/fill.py\". A " +
			"script that SKILL.md or another Markdown file of the skill already runs that way (python, " +
			"python3, uv run, node, npx tsx, deno run, bash, sh, ruby, perl, ...) needs no execute bit " +
			"and is not reported.",
		Bad:   "pdf/\n  SKILL.md\n  scripts/fill.py   (#!/usr/bin/env python3, mode 0644)",
		Good:  "pdf/\n  SKILL.md   (Run `python3 scripts/fill.py`.)\n  scripts/fill.py   (#!/usr/bin/env python3, mode 0755)",
		Check: withFiles(checkScriptExec),
	},
	{
		ID:       "skill-too-many-files",
		Title:    "more files than MCP hosts or the Vercel skills CLI accept",
		Severity: Warning,
		Publish:  true,
		Explain: "MCP hosts list every file of a skill as a resource and accept at most 512 files per " +
			"skill (the MCP Inspector fails a skill of more), so the build leaves a skill of more out of " +
			"the MCP documents (mcp/*.json) and keeps it in every other index: a warning. The Vercel skills " +
			"CLI installs no skill of more than 1000 files from a bundle's index (a copy from a repository " +
			"it takes whole), and says nothing of it, so past 1000 lint " +
			"reports an error, whatever severity the rule is given (but off). Leave generated or bulky files out " +
			"with .skillignore, merge small files, or split the skill in two. Over 10,000 files verify " +
			"and pull refuse the skill's archive, so the build refuses the skill. " +
			"A plugin's archive is held to the same limits: past them lint reports an error at the plugin, and the build leaves the plugin out.",
		Bad:      "pdf/\n  SKILL.md\n  icons/0001.svg ... icons/0900.svg",
		Good:     "pdf/\n  SKILL.md\n  icons.zip\n  scripts/unpack.sh",
		Check:    withFiles(checkTooManyFiles),
		CheckRun: checkPluginPackLimits,
	},
	{
		ID:       "skill-too-large",
		Title:    "skill larger than MCP hosts accept",
		Severity: Warning,
		Publish:  true,
		Explain: "MCP hosts accept at most 16 MiB of files per skill as they receive them: resources/read " +
			"sends a text file as it is and any other (an image, a PDF, an archive) base64-encoded, 4 " +
			"bytes for every 3, and the MCP Inspector stops reading a skill past 16 MiB of what it " +
			"received. Every published file counts, SKILL.md included. The build leaves a larger skill " +
			"out of the MCP documents (mcp/*.json) and keeps it in every other index; the Vercel skills " +
			"CLI takes 50 MiB. Leave large files out with .skillignore and have a script fetch them at " +
			"run time, or split the skill. Over 256 MiB unpacked (every file with its tar header) verify " +
			"and pull refuse the skill's archive, so the build refuses the skill: lint reports that as an " +
			"error, whatever severity the rule is given. " +
			"A plugin's archive is held to the same limits: past them lint reports an error at the plugin, and the build leaves the plugin out.",
		Bad:      "pdf/\n  SKILL.md\n  samples/   (40 MiB of PDFs)",
		Good:     "pdf/\n  SKILL.md\n  scripts/fetch-samples.sh",
		Check:    withFiles(checkSkillTooLarge),
		CheckRun: checkPluginPackLimits,
	},
	{
		ID:       "skill-md-too-large",
		Title:    "SKILL.md larger than 256 KiB",
		Severity: Warning,
		Explain: "fast-agent refuses a SKILL.md over 256 KiB, and every client loads the whole file into " +
			"the model's context when the skill is used. The size is the file's size on disk. Keep " +
			"SKILL.md to the instructions and move reference material into files under references/ " +
			"that SKILL.md links to, which agents read only when needed.",
		Bad:   "pdf/\n  SKILL.md   (400 KiB with the whole PDF reference inline)",
		Good:  "pdf/\n  SKILL.md   (8 KiB)\n  references/pdf-spec.md",
		Check: checkSkillMDTooLarge,
	},
	{
		ID:       "file-too-large",
		Title:    "file larger than 10 MiB",
		Severity: Warning,
		Publish:  true,
		Explain: "fast-agent refuses any file of a skill over 10 MiB, and a large file makes every " +
			"install slow. Leave it out with .skillignore and have a script fetch or build it at " +
			"run time, or compress it. Over 64 MiB (SKILL.md too) verify and pull read no such file, so " +
			"the build refuses the skill: lint reports that as an error, whatever severity the rule is given. " +
			"A plugin's archive is held to the same limits: past them lint reports an error at the plugin, and the build leaves the plugin out.",
		Bad:      "pdf/\n  SKILL.md\n  assets/sample.pdf   (25 MiB)",
		Good:     "pdf/\n  SKILL.md\n  scripts/fetch-sample.sh",
		Check:    withFiles(checkFileTooLarge),
		CheckRun: checkPluginPackLimits,
	},
}

func checkSymlink(p *Pass) {
	if len(p.Files.Links) == 0 {
		return
	}
	const fix = "replace the link with the file itself"
	dirs := map[string]bool{} // linked folders already reported
	for _, f := range p.Files.Files {
		if f.Link {
			p.Reportf(f.Path, 0, 0, fix, "the file is a symbolic link%s; the build publishes a copy of the target, "+
				"but git on Windows, zip uploads and some installers do not follow links", linkTarget(p.Files, f.Path))
			continue
		}
		// A file below a linked folder is not a link itself.
		for dir := range pathElems(path.Dir(f.Path)) {
			if dirs[dir] {
				break
			}
			if _, ok := p.Files.Links[dir]; ok {
				dirs[dir] = true
				p.Reportf(dir, 0, 0, "replace the link with the folder itself",
					"the folder is a symbolic link%s; the build publishes copies of the files below it, "+
						"but git on Windows, zip uploads and some installers do not follow links", linkTarget(p.Files, dir))
				break
			}
		}
	}
}

// linkTarget describes where the link at rel points, for messages.
func linkTarget(files *skill.Files, rel string) string {
	if t, ok := files.Links[rel]; ok {
		return fmt.Sprintf(" to %q", t)
	}
	return ""
}

func checkSymlinkEscape(p *Pass) {
	for _, r := range p.Files.Refused {
		switch r.Kind {
		case skill.LinkEscapes:
			if errors.Is(r.Err, skill.ErrOutsideFolder) {
				p.Reportf(r.Path, 0, 0, "copy the file into the skill folder, or build from the git checkout, where links may reach the whole repository",
					"it is a symbolic link%s outside the skill folder, which is in no git work tree; the build refuses it", linkTarget(p.Files, r.Path))
				break
			}
			p.Reportf(r.Path, 0, 0, "copy the file into the repository, or remove the link",
				"it is a symbolic link%s outside the repository (the git work tree); the build refuses it", linkTarget(p.Files, r.Path))
		case skill.LinkBroken:
			p.Reportf(r.Path, 0, 0, "point the link at a file of the repository, or remove it",
				"it is a broken symbolic link%s (%v); the build refuses it", linkTarget(p.Files, r.Path), r.Err)
		}
	}
}

func checkNotRegular(p *Pass) {
	for _, r := range p.Files.Refused {
		if r.Kind == skill.NotRegular {
			p.Reportf(r.Path, 0, 0, "remove it from the skill folder, or list it in "+skill.IgnoreFile,
				"it is %v; archives hold regular files only, so the build refuses it", r.Err)
		}
	}
}

func checkUnreadable(p *Pass) {
	for _, r := range p.Files.Refused {
		if r.Kind != skill.Unreadable {
			continue
		}
		rel := strings.Trim(r.Path, "/") // folders are recorded as "dir/", the skill itself as "/"
		what := "the file"
		switch {
		case rel == "":
			what = "the skill folder"
		case strings.HasSuffix(r.Path, "/"):
			what = "the folder"
		}
		p.Reportf(rel, 0, 0, "make it readable (chmod a+r), or list it in "+skill.IgnoreFile,
			"%s cannot be read (%v), so it cannot be published", what, r.Err)
	}
	// Collect only stats files; whether they open shows when they are read.
	// The entry file's read error has a rule of its own.
	for _, f := range p.Files.Files {
		if f.Path == p.Skill.File {
			continue
		}
		if c := p.Content(f); c.Err != nil {
			p.Reportf(f.Path, 0, 0, "make it readable (chmod a+r), or list it in "+skill.IgnoreFile,
				"the file cannot be read (%v), so it cannot be published", plainErr(c.Err))
		}
	}
}

// plainErr drops the operation and absolute path from an *fs.PathError:
// findings name the file themselves, relative to the run.
func plainErr(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// ownIgnore names the one .skillignore that leaves a skill's file out:
// the skill folder's, not one at the top of the repository, where an
// author used to .gitignore would put it. It names no path, so that a
// kept verdict reads the same from every working folder.
var ownIgnore = skill.IgnoreFile + " beside SKILL.md"

func checkGitIgnored(p *Pass) {
	for _, rel := range p.Files.GitIgnored() {
		if rel == p.Skill.File {
			p.Reportf(rel, 0, 0, "track it (git add -f), or leave the skill out with --ignore and its folder",
				"git ignores it, so no clone of the repository has this skill, yet the build publishes it")
			continue
		}
		p.Reportf(strings.TrimSuffix(rel, "/"), 0, 0, fmt.Sprintf("leave it out with %s (/%s), or track it (git add -f) if it is meant to be published", ownIgnore, rel),
			"git ignores it, so no clone of the repository has it, yet the build publishes it")
	}
}

// checkPluginGitIgnored is checkGitIgnored for the files of each plugin
// outside its skills' folders, which are checked with each skill.
func checkPluginGitIgnored(p *RunPass) {
	p.eachPlugin(func(pl *plugin.Plugin, files *skill.Files, skills map[string]bool) {
		for _, rel := range files.GitIgnored() {
			if !inSkill(rel, skills) {
				p.Reportf(filepath.Join(pl.Dir, filepath.FromSlash(strings.TrimSuffix(rel, "/"))), 0, 0,
					fmt.Sprintf("leave it out with a %s in the plugin's folder, %s (/%s), or track it (git add -f) if it is meant to be published", skill.IgnoreFile, p.Rel(pl.Dir), rel),
					"git ignores it, so no clone of the repository has it, yet the plugin's archives publish it")
			}
		}
	})
}

func checkJunk(p *Pass) {
	ig := p.Files.Ignore
	for _, j := range p.Files.Junk {
		rel, dir := strings.CutSuffix(j, "/")
		name := path.Base(rel)
		// Collect leaves junk out before it looks at .skillignore; an entry
		// there is how an author says "I know, leave it".
		if ig != nil && ig.Match(rel, dir) {
			continue
		}
		if skill.RepoPlumbing(rel, dir) {
			continue // the repository's: left out, and no one is asked to delete it
		}
		pattern := name
		if dir {
			pattern += "/"
		} else if skill.IsZoneIdentifier(name) {
			pattern = "*Zone.Identifier" // one for all, and no U+F03A to type
		}
		if name == ".git" || dir && (name == ".hg" || name == ".svn") {
			// A skill often is a repository's root, or a submodule's
			// checkout (whose .git is a file naming the repository):
			// never suggest deleting one.
			if rel == name {
				continue
			}
			p.Reportf(rel, 0, 0, fmt.Sprintf("list %q in %s if it is meant to stay", strings.TrimSuffix(j, "/")+strings.TrimPrefix(pattern, name), ownIgnore),
				"it is a nested repository (or a git submodule's pointer) that the build leaves out")
			continue
		}
		if skill.IsEnvFile(name) && !dir {
			// Never "delete it": it is someone's working credentials.
			p.Reportf(rel, 0, 0, fmt.Sprintf("list %q in %s to say it stays out; ship a %s.example of placeholders if the skill needs one", pattern, ownIgnore, name),
				"it is a dotenv file, whose values are credentials, that the build leaves out")
			continue
		}
		rm := "rm"
		if dir {
			rm = "rm -r"
		}
		// The fix names no path, so that every .DS_Store of a skill
		// reads as one finding.
		p.Reportf(rel, 0, 0, fmt.Sprintf("delete it (%s), or list %q in %s", rm, pattern, ownIgnore),
			"it is %s that the build leaves out", junkKind(name, dir))
	}
}

func junkKind(name string, dir bool) string {
	switch {
	case name == ".DS_Store":
		return "a macOS Finder file"
	case name == "Thumbs.db" || name == "desktop.ini":
		return "a Windows Explorer file"
	case name == "__pycache__":
		return "a Python bytecode cache"
	case skill.IsZoneIdentifier(name):
		return "Windows' mark of a downloaded file (its Zone.Identifier stream, which names the URL it came from)"
	case strings.HasSuffix(name, ".pyc") || strings.HasSuffix(name, ".pyo"):
		return "compiled Python bytecode"
	case dir:
		return "a junk folder"
	}
	return "an editor swap or backup file"
}

func checkPathCollision(p *Pass) { pathCollisions(p.Files.Files, p) }

// pathCollisions is path-collision's check of a list of files, a skill's
// or a plugin's.
func pathCollisions(files []skill.File, p fileReporter) {
	type entry struct {
		path string
		dir  bool
	}
	seen := map[string]entry{}
	reported := map[string]bool{}
	add := func(rel string, dir bool) {
		k := pathKey(rel)
		prev, ok := seen[k]
		if !ok {
			seen[k] = entry{rel, dir}
			return
		}
		// Two folders that differ in case merge harmlessly into one; any
		// files that really collide inside them are reported themselves.
		if prev.path == rel || prev.dir && dir || reported[rel] {
			return
		}
		reported[rel] = true
		what, where := "letter case", "macOS and Windows"
		if norm.NFC.String(prev.path) == norm.NFC.String(rel) {
			what, where = "Unicode normalization (NFC and NFD)", "macOS"
		}
		p.Reportf(rel, 0, 0, "rename one of them, or merge them",
			"%s%s and %s%s differ only in %s; they are one path on %s, where installing it overwrites one with the other",
			folderWord(prev.dir), prev.path, folderWord(dir), rel, what, where)
	}
	for _, f := range files {
		for rel := range pathElems(f.Path) {
			add(rel, rel != f.Path)
		}
	}
}

func folderWord(dir bool) string {
	if dir {
		return "folder "
	}
	return ""
}

// pathKey maps paths that name one file on a case-insensitive,
// normalization-insensitive file system to the same string.
func pathKey(p string) string {
	if !strings.ContainsFunc(p, nonASCII) {
		return strings.ToLower(p)
	}
	// A cases.Caser keeps state, so each call gets its own.
	return norm.NFC.String(cases.Fold().String(norm.NFC.String(p)))
}

func checkPathWindows(p *Pass) {
	reported := map[string]bool{}
	for _, f := range p.Files.Files {
		for rel, name := range pathElems(f.Path) {
			if reported[rel] {
				continue
			}
			if why := windowsNameProblem(name); why != "" {
				reported[rel] = true
				p.Reportf(rel, 0, 0, "rename it (and update the links to it)",
					"the name %s, so the skill cannot be installed on Windows", why)
			}
		}
	}
}

// windowsNameProblem says why Windows cannot create a file or folder of
// this name, or returns "" (learn.microsoft.com, "Naming Files, Paths, and
// Namespaces").
func windowsNameProblem(name string) string {
	for _, r := range name {
		if r < 0x20 {
			return fmt.Sprintf("contains the control character %U", r)
		}
		if strings.ContainsRune(`<>:"|?*\`, r) {
			return fmt.Sprintf("contains %q, which Windows does not allow in names", r)
		}
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		return "ends in a dot or a space, which Windows strips"
	}
	// NUL.txt and NUL.tar.gz are both NUL: the device name is what precedes
	// the first dot, trailing spaces ignored.
	base, _, _ := strings.Cut(name, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	numbered := len(base) > 3 && (base[:3] == "COM" || base[:3] == "LPT") &&
		strings.Contains("0123456789¹²³", base[3:]) && utf8.RuneCountInString(base[3:]) == 1
	if numbered || base == "CON" || base == "PRN" || base == "AUX" || base == "NUL" {
		return "is the reserved device name " + base + " on Windows (with any extension)"
	}
	return ""
}

// checkPathPackable reports the files package pack refuses for reasons
// other than the path's length (path-too-long's), by asking pack itself, so
// lint promises exactly what the build accepts; and, as the build refuses
// them whatever lint's settings, as errors (Refuse), as path-too-long does.
func checkPathPackable(p *Pass) { pathsPackable(p.Files.Files, p) }

func pathsPackable(files []skill.File, p fileReporter) {
	for _, f := range files {
		if err := pack.CheckSize(f.Path, f.Size); err != nil {
			p.Refusef(f.Path, 0, 0, "leave it out with "+skill.IgnoreFile+" and fetch it at run time, or split it",
				"the file cannot be packed: %s", packMessage(err))
		}
		err := pack.CheckPath(f.Path)
		if err == nil || errors.Is(err, pack.ErrTooLong) {
			continue
		}
		fix := "rename the file (and update the links to it)"
		if name := packableName(f.Path); name != f.Path && pack.CheckPath(name) == nil {
			fix = fmt.Sprintf("rename it, e.g. to %q, and update the links to it", name)
		}
		if !utf8.ValidString(f.Path) {
			fix = "rename it in UTF-8 from the encoding it was written in (convmv -f LATIN1 -t UTF-8 --notest " +
				human.ShellQuote(path.Base(f.Path)) + " does it for Latin-1), and update the links to it"
		}
		p.Refusef(f.Path, 0, 0, fix, "the path cannot be packed: %s", packMessage(err))
	}
}

// packMessage is what a *pack.PathError says after the path.
func packMessage(err error) string {
	if pe, ok := errors.AsType[*pack.PathError](err); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// packableName is rel without the characters pack refuses in names, and
// with "_" for each run of bytes that is not UTF-8 (a Latin-1 "caf\xe9" is
// "caf_"), for a fix to suggest; the rest of the name, in any script,
// stays as it is.
func packableName(rel string) string {
	return strings.Map(func(r rune) rune {
		if pack.RuneProblem(r) != "" {
			return -1
		}
		return r
	}, strings.ToValidUTF8(rel, "_"))
}

func checkPathTooLong(p *Pass) { pathsTooLong(p.Files.Files, p) }

func pathsTooLong(files []skill.File, p fileReporter) {
	for _, f := range files {
		if pack.FitsUSTAR(f.Path) {
			continue
		}
		// Said without the lengths, which differ by file, so that a
		// skill's long paths read as one finding.
		why := "it is longer than a USTAR tar header holds (100 bytes, or a folder part of up to 155 and a name " +
			"of up to 100 split at a \"/\")"
		if base := path.Base(f.Path); len(base) > 100 {
			why = "its file name is longer than the 100 bytes a USTAR tar header holds for a name"
		}
		if strings.ContainsFunc(f.Path, nonASCII) {
			why += " (in UTF-8, where a Chinese, Japanese or Korean character takes three bytes)"
		}
		p.Refusef(f.Path, 0, 0, "shorten the folder or file names",
			"the path cannot be packed: %s, and the skills CLI reads no longer forms", why)
	}
}

// wordSet is the set of the space-separated words of s.
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}

// textExts are the extensions of files that readers decode as text.
var textExts = wordSet(".md .txt .py .sh .js .ts .json .yaml .yml .toml .html .css .csv .xml")

// isTextPath reports whether a skill path names a text file: by extension,
// or an extension-less file under scripts/ (an executable script).
func isTextPath(rel string) bool {
	ext := strings.ToLower(path.Ext(rel))
	return textExts[ext] || ext == "" && strings.HasPrefix(rel, "scripts/")
}

var (
	utf8BOM  = []byte{0xEF, 0xBB, 0xBF}
	crlfLine = []byte("\r\n")
)

func checkTextEncoding(p *Pass) {
	const (
		hintUTF16 = "re-save it as UTF-8 (iconv -f UTF-16 -t UTF-8)"
		hintBOM   = "remove the byte order mark (skillpack lint --fix does)"
		hintUTF8  = "re-save it as UTF-8 (from Windows-1252, say: iconv -f WINDOWS-1252 -t UTF-8)"
	)
	for _, f := range p.Files.Files {
		if f.Path == p.Skill.File || !isTextPath(f.Path) {
			continue
		}
		c := p.Content(f)
		if c.Err != nil {
			continue
		}
		data := c.Data
		if zeroed(data) {
			p.Reportf(f.Path, 0, 0, zeroedFix, "the file is %d NUL bytes and nothing else: its text was lost (an interrupted copy or sync, a disk fault)", len(data))
			continue
		}
		if path.Ext(f.Path) == "" && !skill.UTF16(data) && binaryData(data) {
			continue // a program in scripts/ (alexalemi/skills' janet), not a script
		}
		if skill.UTF16(data) {
			p.Reportf(f.Path, 0, 0, hintUTF16, "the file is UTF-16 (it starts with a UTF-16 byte order mark); readers expect UTF-8")
			continue
		}
		// Excel reads a CSV as UTF-8 only when it starts with a BOM.
		if bytes.HasPrefix(data, utf8BOM) && strings.ToLower(path.Ext(f.Path)) != ".csv" {
			p.Reportf(f.Path, 1, 1, hintBOM, "the file starts with a UTF-8 byte order mark, which readers take as part "+
				"of the first line (it breaks shebangs and JSON)")
		}
		if off := firstBadUTF8(data, c.Complete); off >= 0 {
			line, col := newLines(data).pos(off)
			p.Reportf(f.Path, line, col, hintUTF8, "the file is not valid UTF-8 here; readers turn such bytes into U+FFFD "+
				"or refuse the file")
		}
	}
}

// zeroed reports whether data is NUL bytes and nothing else: a file whose
// blocks were allocated and never written (withcodes: 761 of them).
func zeroed(data []byte) bool {
	return len(data) > 0 && len(bytes.TrimLeft(data, "\x00")) == 0
}

const zeroedFix = "restore it from version control (git checkout) or a backup"

// lfsPointer is how a Git LFS pointer file starts (the LFS specification:
// its first line, and a pointer is under 1024 bytes).
var lfsPointer = []byte("version https://git-lfs.github.com/spec/v1\n")

func checkLFSPointers(p *Pass) {
	for _, f := range p.Files.Files {
		if f.Size >= 1024 || f.Size < int64(len(lfsPointer)) {
			continue
		}
		if c := p.Content(f); c.Err == nil && bytes.HasPrefix(c.Data, lfsPointer) && bytes.Contains(c.Data, []byte("\noid sha256:")) {
			p.Reportf(f.Path, 1, 1, "run git lfs pull before building; in GitHub Actions, give actions/checkout lfs: true",
				"the file is a Git LFS pointer, not the file it stands for: the checkout has not fetched it, and clients would install the pointer")
		}
	}
}

// firstBadUTF8 returns the offset of the first byte that is not UTF-8, or -1.
// A rune cut off by the read limit is not an error.
func firstBadUTF8(data []byte, complete bool) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			if !complete && !utf8.FullRune(data[i:]) {
				return -1
			}
			return i
		}
		i += n
	}
	return -1
}

// binaryData reports whether data looks like a binary file: a NUL byte in
// its first 8000 bytes, as git decides, or what the WHATWG's sniffing
// (http.DetectContentType) takes for one by its first 512 bytes: a
// signature (a PDF, whose compressed streams hold no NUL for tens of
// kilobytes, an image, an archive, a font) or a control byte no text
// has. A text file in another encoding than UTF-8 stays text.
func binaryData(data []byte) bool {
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return true
	}
	t := http.DetectContentType(data)
	return !strings.HasPrefix(t, "text/") && t != "application/postscript"
}

// lines turns byte offsets of a file into 1-based lines and columns,
// columns counted in characters as YAML's are, so that every rule's
// positions in one file mean the same. A UTF-8 BOM does not count towards
// line 1's columns. Offsets asked for in order along one line continue
// from the last one, so that a line of many findings is not counted over
// again for each.
type lines struct {
	src    []byte
	starts []int  // byte offset of each line's start, built on first use
	last   [3]int // the last position asked for: offset, line, column
}

func newLines(src []byte) *lines { return &lines{src: src} }

func (l *lines) pos(off int) (line, col int) {
	if l.starts == nil {
		l.starts = []int{0}
		if bytes.HasPrefix(l.src, utf8BOM) {
			l.starts[0] = len(utf8BOM)
		}
		for i, b := range l.src {
			if b == '\n' {
				l.starts = append(l.starts, i+1)
			}
		}
	}
	off = min(max(off, l.starts[0]), len(l.src))
	i := sort.SearchInts(l.starts, off+1) - 1
	from, col := l.starts[i], 1
	if l.last[1] == i+1 && l.last[0] <= off && l.last[0] >= from {
		from, col = l.last[0], l.last[2]
	}
	col += utf8.RuneCount(l.src[from:off])
	l.last = [3]int{off, i + 1, col}
	return i + 1, col
}

// windowsScripts may, and often must, use CRLF.
var windowsScripts = wordSet(".bat .cmd .ps1 .psm1 .vbs")

// notScripts are the documents and data that sit beside scripts in
// scripts/ (a README, requirements.txt, a config), which no interpreter
// runs line by line.
var notScripts = wordSet(".md .markdown .txt .rst .json .yaml .yml .toml .ini .cfg .conf .html .htm .css " +
	".csv .tsv .xml .svg .lock")

// crlfReaders are the languages whose interpreters read CRLF source as
// LF: such a file breaks only by its shebang, when it has one.
var crlfReaders = wordSet(".py .js .mjs .cjs .ts .rb .php .lua .r .go .java")

// crlfBreaks reports whether CRLF line ends break the file at rel: a script
// under scripts/ (a shebang, or no document or data extension, nor that of
// a language read either way), not a Windows one, and not binary.
func crlfBreaks(rel string, data []byte) bool {
	ext := strings.ToLower(path.Ext(rel))
	return strings.HasPrefix(rel, "scripts/") && !windowsScripts[ext] && !binaryData(data) &&
		(!notScripts[ext] && !crlfReaders[ext] || bytes.HasPrefix(data, []byte("#!")))
}

func checkScriptCRLF(p *Pass) {
	for _, f := range p.Files.Files {
		if !strings.HasPrefix(f.Path, "scripts/") || windowsScripts[strings.ToLower(path.Ext(f.Path))] {
			continue
		}
		c := p.Content(f)
		if c.Err != nil || !crlfBreaks(f.Path, c.Data) {
			continue
		}
		i := bytes.Index(c.Data, crlfLine)
		if i < 0 {
			continue
		}
		line, col := newLines(c.Data).pos(i)
		why := "a shell reads the \\r into every command"
		switch {
		case line == 1 && bytes.HasPrefix(c.Data, []byte("#!")):
			why = fmt.Sprintf("the shebang names %q, an interpreter that does not exist", shebangCommand(c.Data)[0]+"\r")
		case crlfReaders[strings.ToLower(path.Ext(f.Path))]:
			continue // its shebang is whole, and the rest is read as LF
		}
		p.Reportf(f.Path, line, col, "convert it to LF line endings (dos2unix), and add "+
			"\"scripts/** text eol=lf\" to .gitattributes",
			"the script has CRLF line endings; on Linux and macOS the \\r is part of each line, so %s", why)
	}
}

func checkScriptExec(p *Pass) {
	var bare []skill.File // scripts with "#!" and no execute bit
	for _, f := range p.Files.Files {
		if !strings.HasPrefix(f.Path, "scripts/") || f.Exec() {
			continue
		}
		if c := p.Content(f); c.Err == nil && bytes.HasPrefix(c.Data, []byte("#!")) {
			bare = append(bare, f)
		}
	}
	if len(bare) == 0 {
		return
	}
	// What the fix asks for is done already: the skill runs it through
	// its interpreter, which needs no execute bit.
	run := interpreted(p, bare)
	for _, f := range bare {
		if namedIn(run, f.Path) {
			continue
		}
		// Neither names the script, so that a skill's scripts of one
		// interpreter read as one finding.
		run := strings.Join(shebangCommand(p.Content(f).Data), " ")
		chmod := "chmod +x it"
		if runtime.GOOS == "windows" { // where files have no execute bit: git's index has it
			chmod = "run git update-index --chmod=+x on it and commit"
		}
		p.Reportf(f.Path, 0, 0, fmt.Sprintf("%s, and have SKILL.md run it as `%s` and its path", chmod, run),
			"the script starts with \"#!\" but has no execute bit, so archives carry it as 0644; clients such as the "+
				"skills CLI install every file 0644 anyway, so SKILL.md should run it through %s", run)
	}
}

// interpreters are the commands that run a script named after them, with
// no need for its execute bit: "python3 scripts/x.py", "uv run scripts/x.py",
// "npx tsx scripts/x.ts", "bash scripts/x.sh", ". scripts/env.sh".
var interpreters = wordSet("python python2 python3 py pypy pypy3 uv uvx pipx poetry node nodejs bun bunx " +
	"deno npx pnpm tsx ts-node bash sh zsh dash ksh fish source . ruby perl php Rscript pwsh powershell lua " +
	"osascript")

// interpreted returns the names (paths and their tails, down to the file
// name) of the scripts that the skill's Markdown, frontmatter included,
// runs through an interpreter: the first path after one on its line, past
// flags and at most two other words ("uv run --with pypdf scripts/x.py").
// A text is read word by word only if it holds the file name of one of
// the scripts asked about, as each of their names does: most hold none.
func interpreted(p *Pass, scripts []skill.File) map[string]bool {
	run := map[string]bool{}
	read := func(src []byte) {
		if !slices.ContainsFunc(scripts, func(f skill.File) bool { return bytes.Contains(src, []byte(path.Base(f.Path))) }) {
			return
		}
		// A Windows path (python "<ROOT>\x\scripts\doctor.py": Bang-isme's
		// CodexAI skills) names the script as a slash path does; a
		// backslash before a quote (sh \"$SD/x.sh\") is an escape.
		if bytes.IndexByte(src, '\\') >= 0 {
			src = bytes.Clone(src)
			for i := range len(src) - 1 {
				if src[i] == '\\' && pathByte[src[i+1]] {
					src[i] = '/'
				}
			}
		}
		words := -1 // other words the script's name may still follow
		eachWord(src, func(w []byte, _ int, newline bool) {
			if newline {
				words = -1
			}
			switch {
			case interpreters[string(w)] || bytes.HasPrefix(w, []byte("python3.")):
				words = 2
			case words < 0 || w[0] == '-':
			case bytes.IndexByte(w, '.') < 0 && bytes.IndexByte(w, '/') < 0:
				words--
			default:
				words = -1
				for s := range tails(string(w)) {
					run[s] = true
				}
			}
		})
	}
	if p.Doc != nil {
		read(p.Doc.Raw)
	}
	for _, f := range p.Files.Files {
		if f.Path != p.Skill.File && isMarkdown(f.Path) {
			if c := p.Content(f); c.Err == nil {
				read(c.Data)
			}
		}
	}
	return run
}

// namedIn reports whether names holds rel or a tail of it.
func namedIn(names map[string]bool, rel string) bool {
	for s := range tails(rel) {
		if names[s] {
			return true
		}
	}
	return false
}

// tails yields a slash path and each of its tails after a "/", longest
// first ("a/b.py", "b.py"): the names by which text may mean the file.
func tails(p string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for yield(p) {
			i := strings.IndexByte(p, '/')
			if i < 0 {
				return
			}
			p = p[i+1:]
		}
	}
}

// pathElems yields, for each element of a slash path, the path up to it
// and its name: "a", "a"; "a/b", "b".
func pathElems(p string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		start := 0
		for i := 0; i <= len(p); i++ {
			if i == len(p) || p[i] == '/' {
				if !yield(p[:i], p[start:i]) {
					return
				}
				start = i + 1
			}
		}
	}
}

// shebangCommand is the command a shebang runs the script with: its
// interpreter and the interpreter's arguments ("npx", "tsx" for
// "#!/usr/bin/env npx tsx"; "python3", "-u" for "#!/usr/bin/env -S
// python3 -u"), without env and what is env's own (its flags, the value
// of -u, -C and -P, NAME=VALUE settings); "sh" when it names none.
func shebangCommand(data []byte) []string {
	first, _, _ := bytes.Cut(data[2:min(len(data), 256)], []byte("\n"))
	fields := strings.Fields(strings.TrimSuffix(string(first), "\r"))
	env := len(fields) > 0 && path.Base(fields[0]) == "env"
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case i == 0 && env:
			continue
		case env && (f == "-u" || f == "-C" || f == "-P" || f == "--unset" || f == "--chdir"):
			i++ // the flag's value
			continue
		case env && len(f) > 2 && (strings.HasPrefix(f, "--split-string=") || strings.HasPrefix(f, "-S")):
			// -S's string, joined to it, starts the command.
			fields[i] = strings.TrimPrefix(strings.TrimPrefix(f, "--split-string="), "-S")
			i--
			continue
		case env && (strings.HasPrefix(f, "-") || strings.Contains(f, "=")):
			continue
		}
		base := path.Base(f)
		if base != "" && base != "." && base != "/" && utf8.ValidString(base) {
			return append([]string{base}, fields[i+1:]...)
		}
		break
	}
	return []string{"sh"}
}

// PackLimits returns what the build refuses of a skill's files (or, what
// being "plugin", a plugin's) by pack's limits, which verify and pull keep
// to: more files than an archive may hold (skill-too-many-files), a file
// larger than a reader reads (file-too-large), more bytes than an archive
// may unpack to (skill-too-large). Each is an error finding, its path
// relative to the folder. Lint's rules of those IDs report them whatever
// severity the rule is given, and the build refuses a skill by the first,
// so that lint and build say the same thing.
func PackLimits(what string, files []skill.File) []Finding {
	var out []Finding
	if len(files) > pack.MaxEntries {
		out = append(out, Finding{Rule: "skill-too-many-files", Severity: Error,
			Fix:     "leave files out with " + skill.IgnoreFile + ", or split the " + what,
			Message: fmt.Sprintf("the %s has %d files; verify and pull refuse an archive of more than %d", what, len(files), pack.MaxEntries)})
	}
	sizes := make([]int64, len(files))
	for i, f := range files {
		if f.Size > pack.MaxFile {
			out = append(out, Finding{Path: f.Path, Rule: "file-too-large", Severity: Error,
				Fix:     "leave it out with " + skill.IgnoreFile + " and fetch it at run time, or split it",
				Message: fmt.Sprintf("the file is %d bytes; verify and pull read no file over %d bytes (64 MiB), so the build does not publish it", f.Size, int64(pack.MaxFile))})
		}
		sizes[i] = f.Size
	}
	if n := pack.TarBound(sizes); n > pack.MaxUnpacked {
		out = append(out, Finding{Rule: "skill-too-large", Severity: Error,
			Fix:     "leave large files out with " + skill.IgnoreFile + " and fetch them at run time, or split the " + what,
			Message: fmt.Sprintf("the %s's archive would unpack to up to %d bytes; verify and pull unpack no archive to more than %d bytes (256 MiB)", what, n, int64(pack.MaxUnpacked))})
	}
	return out
}

// fileReporter is what the checks of a list of files report through: a
// skill's Pass, or inPlugins' reporter for a plugin's files.
type fileReporter interface {
	Reportf(path string, line, col int, fix, format string, args ...any)
	Refusef(path string, line, col int, fix, format string, args ...any)
}

// inPlugins runs a check of a list of files on the files of each plugin
// outside its skills (whose own checks see theirs): the build leaves out
// a plugin whose archive cannot hold them.
func inPlugins(check func([]skill.File, fileReporter)) func(*RunPass) {
	return func(p *RunPass) {
		p.eachPlugin(func(pl *plugin.Plugin, files *skill.Files, own map[string]bool) {
			var outside []skill.File
			for _, f := range files.Files {
				if !inSkill(f.Path, own) {
					outside = append(outside, f)
				}
			}
			check(outside, pluginReporter{p, pl.Dir})
		})
	}
}

// pluginReporter reports the findings of a plugin's files at their paths
// from the run's folder.
type pluginReporter struct {
	p   *RunPass
	dir string
}

func (r pluginReporter) Reportf(path string, line, col int, fix, format string, args ...any) {
	r.p.Reportf(filepath.Join(r.dir, filepath.FromSlash(path)), line, col, fix, format, args...)
}

func (r pluginReporter) Refusef(path string, line, col int, fix, format string, args ...any) {
	r.p.Report(Finding{Path: r.p.Rel(filepath.Join(r.dir, filepath.FromSlash(path))), Line: line, Column: col,
		Severity: Error, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// checkPluginPackLimits reports the rule's findings of PackLimits of each
// plugin's files, for which the build leaves the plugin out of the bundle
// (a file of one of its skills is said once: Sort drops the twin).
func checkPluginPackLimits(p *RunPass) {
	p.eachPlugin(func(pl *plugin.Plugin, files *skill.Files, _ map[string]bool) {
		for _, f := range PackLimits("plugin", files.Files) {
			if f.Rule == p.rule.ID {
				f.Path = p.Rel(filepath.Join(pl.Dir, filepath.FromSlash(f.Path)))
				p.Report(f)
			}
		}
	})
}

// refusePackLimits reports the rule's findings of PackLimits, and whether
// there were any: a skill the build refuses is not also told of the
// clients' lower limits.
func refusePackLimits(p *Pass) bool {
	limits := p.Memo("pack-limits", func() any { return PackLimits("skill", p.Files.Files) }).([]Finding)
	refused := false
	for _, f := range limits {
		if f.Rule == p.rule.ID {
			p.Refuse(f)
			refused = true
		}
	}
	return refused
}

func checkTooManyFiles(p *Pass) {
	n := len(p.Files.Files)
	if n <= skill.MCPMaxFiles || refusePackLimits(p) {
		return
	}
	fix := "leave files out with " + skill.IgnoreFile + ", merge small files, or split the skill"
	if n > maxVercelFiles {
		p.Refusef("", 0, 0, fix, "the skill publishes %d files; the Vercel skills CLI, installing from the bundle's index, skips a skill of "+
			"more than %d without a word (it copies one from a repository whole; MCP hosts accept at most %d)", n, maxVercelFiles, skill.MCPMaxFiles)
		return
	}
	p.Reportf("", 0, 0, fix, "the skill publishes %d files; MCP hosts accept at most %d per skill, so the build leaves it "+
		"out of the MCP documents (the Vercel skills CLI takes %d)", n, skill.MCPMaxFiles, maxVercelFiles)
}

func checkSkillTooLarge(p *Pass) {
	if refusePackLimits(p) {
		return
	}
	served, err := p.Files.ServedBytes(skill.MCPMaxBytes)
	if err != nil || served <= skill.MCPMaxBytes {
		return // a file that cannot be read is another rule's finding
	}
	var total int64
	for _, f := range p.Files.Files {
		total += f.Size
	}
	p.Reportf("", 0, 0, "leave large files out with "+skill.IgnoreFile+" and fetch them at run time, or split the skill",
		"the skill publishes %s in %d files, %s as MCP hosts receive it (binary files base64-encoded); they accept at most "+
			"16 MiB per skill, so the build leaves it out of the MCP documents (the Vercel skills CLI takes 50 MiB)",
		human.Bytes(total), len(p.Files.Files), human.Bytes(served))
}

func checkSkillMDTooLarge(p *Pass) {
	if p.Skill.Err != nil || p.Skill.Size <= maxEntryBytes {
		return
	}
	p.Reportf(p.Skill.File, 0, 0, "move reference material into files under references/ and link them from "+p.Skill.File,
		"%s is %s; fast-agent refuses entry files over 256 KiB, and clients load all of it into the model's context",
		p.Skill.File, human.Bytes(p.Skill.Size))
}

func checkFileTooLarge(p *Pass) {
	refusePackLimits(p) // SKILL.md too
	for _, f := range p.Files.Files {
		// An oversized SKILL.md is skill-md-too-large's, with a lower limit.
		if f.Path == p.Skill.File || f.Size <= maxFileBytes || f.Size > pack.MaxFile {
			continue
		}
		p.Reportf(f.Path, 0, 0, "leave it out with "+skill.IgnoreFile+" and fetch or build it at run time, or compress it",
			"the file is %s; fast-agent refuses files over 10 MiB", human.Bytes(f.Size))
	}
}
