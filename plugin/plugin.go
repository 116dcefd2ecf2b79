package plugin

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/skillpack/skillpack/internal/jsonenc"
	"github.com/skillpack/skillpack/internal/smallfile"
)

// Manifest is the Agent Plugins standard's manifest, at a plugin's root;
// the clients' own have the same name inside their folders.
const Manifest = "plugin.json"

// MCP is the Agent Plugins MCP configuration, at a plugin's root.
const MCP = "mcp.json"

// SkillsDir is the folder of a plugin's skills, at its root: each folder
// just below it holding SKILL.md is one skill (Agent Plugins 1.0 §7.1).
const SkillsDir = "skills"

// Plugin is one plugin folder as read.
type Plugin struct {
	Dir         string // the folder, as given to Read
	Name        string // from the first manifest that has one, else the folder's name
	Version     string
	Description string

	// Manifests are the plugin's manifests, the Agent Plugins one (the
	// standard's, which a client reads first) before the clients' own,
	// which are in path order.
	Manifests []File
	// MCP is mcp.json, when the plugin has one.
	MCP *File

	// Skills are the folders below skills/ holding SKILL.md, relative to
	// Dir with "/", sorted; SkillsErr says why skills/ is no folder
	// when it is something else.
	Skills    []string
	SkillsErr string
	// Declared are the paths the clients' manifests give in "skills"
	// (a skill's folder or a folder of skills, relative to Dir).
	Declared []Declared
	// Listed are the paths a marketplace entry naming the plugin gives in
	// "skills", relative to Dir (lint's scope sets them from the entry).
	Listed []string
	// Plain are the folders holding SKILL.md, relative to Dir with "/",
	// that are no skills but files of the plugin: no client loads them as
	// skills, nor does the run take them (lint's scope sets them).
	Plain []string
}

// File is one of the plugin's JSON files.
type File struct {
	Path   string // on disk, in the form of Dir
	Rel    string // relative to Dir, with "/"
	Client string // "" for the standard's files, else the client's folder (".claude-plugin")
	Data   []byte
	Err    error          // it could not be read, or is no JSON object
	Name   string         // its "name", when a string
	Line   int            // of "name", or 1
	pos    offsets        // where its values start
	fields map[string]any // its top-level members
}

// Declared is a path a client's manifest gives for skills.
type Declared struct {
	Path string // as written
	By   *File
	Line int
}

// Read reads the plugin in dir. Only a folder that cannot be listed is an
// error; what is wrong inside is for the caller to judge from the model.
func Read(dir string) (*Plugin, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p := &Plugin{Dir: dir}
	var rels []string
	for _, e := range ents {
		n := e.Name()
		switch {
		case n == ".github":
			rels = append(rels, ".github/plugin/"+Manifest)
		case (n == ".plugin" || len(n) > len(".-plugin") && n[0] == '.' && strings.HasSuffix(n, "-plugin")) && e.IsDir(): // Copilot's, and .<client>-plugin
			rels = append(rels, n+"/"+Manifest)
		}
	}
	slices.Sort(rels)
	if slices.ContainsFunc(ents, func(e os.DirEntry) bool { return e.Name() == Manifest && !e.IsDir() }) {
		rels = slices.Insert(rels, 0, Manifest)
	}
	for _, rel := range rels {
		if f := p.read(rel); f != nil {
			if rel != Manifest {
				f.Client = strings.TrimSuffix(rel, "/"+Manifest)
			}
			p.Manifests = append(p.Manifests, *f)
		}
	}
	p.MCP = p.read(MCP)
	for i := range p.Manifests {
		m := &p.Manifests[i]
		if p.Name == "" && m.Name != "" {
			p.Name = m.Name
			p.Version, _ = m.fields["version"].(string)
			p.Description, _ = m.fields["description"].(string)
		}
		if m.Client != "" {
			p.declare(m)
		}
	}
	if p.Name == "" {
		abs, _ := filepath.Abs(dir)
		p.Name = filepath.Base(abs)
	}
	p.skills()
	return p, nil
}

// read reads one of the plugin's JSON files; nil when there is none.
func (p *Plugin) read(rel string) *File {
	disk := filepath.Join(p.Dir, filepath.FromSlash(rel))
	if fi, err := os.Stat(disk); err != nil || fi.IsDir() {
		return nil
	}
	f := &File{Path: disk, Rel: rel, Line: 1}
	if f.Data, f.Err = smallfile.Read(disk); f.Err != nil {
		return f
	}
	if f.pos, f.Err = positions(f.Data); f.Err != nil {
		return f
	}
	if f.Err = json.Unmarshal(f.Data, &f.fields); f.Err != nil {
		return f
	}
	if n, ok := f.fields["name"].(string); ok {
		f.Name = n
		f.Line, _ = f.Pos("/name")
	}
	return f
}

// Pos is the line and column of the member or value at a JSON pointer
// (1, 1 for one the file lacks).
func (f *File) Pos(ptr string) (int, int) { return jsonenc.LineCol(f.Data, f.pos.at(ptr)) }

// declare notes the paths of a client manifest's "skills": a string or a
// list of strings (Claude Code, Codex, Cursor).
func (p *Plugin) declare(m *File) {
	add := func(s, ptr string) {
		line, _ := m.Pos(ptr)
		p.Declared = append(p.Declared, Declared{Path: s, By: m, Line: line})
	}
	switch v := m.fields["skills"].(type) {
	case string:
		add(v, "/skills")
	case []any:
		for i, e := range v {
			if s, ok := e.(string); ok {
				add(s, "/skills/"+strconv.Itoa(i)) // its own index, past any non-string
			}
		}
	}
}

// skills lists the folders below skills/ that hold SKILL.md. Only the
// folders just below it count, as the standard says.
func (p *Plugin) skills() {
	dir := filepath.Join(p.Dir, SkillsDir)
	fi, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return
	case err != nil:
		p.SkillsErr = err.Error()
		return
	case !fi.IsDir():
		p.SkillsErr = "skills is no folder"
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		p.SkillsErr = err.Error()
		return
	}
	for _, e := range ents {
		if _, err := os.Lstat(filepath.Join(dir, e.Name(), "SKILL.md")); err == nil {
			p.Skills = append(p.Skills, path.Join(SkillsDir, e.Name()))
		}
	}
}

// Contains reports whether a path of the plugin, relative to its folder
// with "/", stays inside the folder once every symbolic link is resolved
// (Agent Plugins 1.0 §4.1). A path that does not exist is judged by its
// text alone.
func (p *Plugin) Contains(rel string) bool {
	rel = filepath.FromSlash(rel)
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, `\`) || !filepath.IsLocal(filepath.Clean(rel)) {
		return false
	}
	root, err := filepath.EvalSymlinks(p.Dir)
	if err != nil {
		return false
	}
	to, err := filepath.EvalSymlinks(filepath.Join(p.Dir, rel))
	if err != nil {
		return true // nothing there to lead out
	}
	r, err := filepath.Rel(root, to)
	return err == nil && filepath.IsLocal(r)
}

// Exists reports whether a path of the plugin, relative to its folder,
// names something.
func (p *Plugin) Exists(rel string) bool {
	_, err := os.Stat(filepath.Join(p.Dir, filepath.FromSlash(rel)))
	return err == nil
}

// Fields are a JSON file's top-level members (nil when it is no object).
func (f *File) Fields() map[string]any { return f.fields }
