package build

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/skillpack/skillpack/layout"
	"gopkg.in/yaml.v3"
)

// These tests read the real bundle built from examples/ the way each
// reader in design/bundle.md does: documents are decoded generically, so a
// missing or misspelt field fails, and every URL, path and digest is
// followed to the bytes it names.

var (
	nameRE   = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

const v2Schema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// srcSkill is a skill folder as the readers must see it.
type srcSkill struct {
	files []entry        // sorted by path, mode 0644/0755
	fm    map[string]any // the SKILL.md frontmatter, parsed as YAML and seen as JSON
}

func readSources(t *testing.T, src string) map[string]srcSkill {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]srcSkill{}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(src, e.Name())
		data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
		if os.IsNotExist(err) {
			continue // not a skill (examples/workflows holds CI files)
		}
		if err != nil {
			t.Fatal(err)
		}
		text := strings.TrimPrefix(string(data), "---\n")
		front, _, ok := strings.Cut(text, "\n---\n")
		if !ok {
			t.Fatalf("%s: no frontmatter", dir)
		}
		var y any
		if err := yaml.Unmarshal([]byte(front), &y); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		out[e.Name()] = srcSkill{files: sourceEntries(t, dir, ""), fm: asJSON(t, y)}
	}
	return out
}

// asJSON converts v through JSON, so values compare as a JSON reader sees them.
func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func readJSON(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' || strings.Contains(string(data), "\r") {
		t.Errorf("%s: want \\n line endings and a final newline", path)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func digestOf(data string) string {
	sum := sha256.Sum256([]byte(data))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// fileAt returns the digest and size of a file in dist, failing if it is
// missing.
func fileAt(t *testing.T, dist, rel string) (string, int64) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(rel)))
	if err != nil {
		t.Errorf("an index names %s, which is not in the bundle: %v", rel, err)
		return "", -1
	}
	return digestOf(string(data)), int64(len(data))
}

// fields returns the object's string fields, failing for any that is
// missing or not a string.
func fields(t *testing.T, where string, v any, keys ...string) (map[string]any, []string) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: %T, want an object", where, v)
	}
	var out []string
	for _, k := range keys {
		s, ok := m[k].(string)
		if !ok {
			t.Errorf("%s: %q is %#v, want a string", where, k, m[k])
		}
		out = append(out, s)
	}
	return m, out
}

func array(t *testing.T, where string, v any) []any {
	t.Helper()
	a, ok := v.([]any)
	if !ok {
		t.Fatalf("%s: %T, want an array", where, v)
	}
	return a
}

// contentDigest restates the manifest digest of design/bundle.md: sha256
// over sorted "<mode> <size> sha256:<hex> <path>" lines.
func contentDigest(files []entry) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%04o %d %s %s\n", f.Mode, len(f.Data), digestOf(f.Data), f.Name)
	}
	return digestOf(b.String())
}

func checkName(t *testing.T, where, name string) {
	if len(name) < 1 || len(name) > 64 || !nameRE.MatchString(name) {
		t.Errorf("%s: name %q breaks 1-64 of [a-z0-9-] without leading, trailing or double '-'", where, name)
	}
}

func checkDescription(t *testing.T, where, d string) {
	if n := len(utf16.Encode([]rune(d))); n < 1 || n > 1024 {
		t.Errorf("%s: description is %d UTF-16 units, want 1-1024", where, n)
	}
}

func TestIndexV2(t *testing.T) {
	src, dist, res := builtExamples(t, Options{})
	srcs := readSources(t, src)
	checkV2(t, dist, srcs, "")

	// Absolute URLs for a CDN name the same files.
	base := "https://cdn.example.com/skills/"
	dist2 := filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{src}, Options{Out: dist2, BaseURL: base})
	checkV2(t, dist2, srcs, base)

	// Without the legacy tree the v0.2 index must stand alone: readers
	// that reject it no longer have the v0.1 tree to fall back on.
	dist3 := filepath.Join(t.TempDir(), "dist")
	res3 := mustBuild(t, []string{src}, Options{Out: dist3, NoLegacy: true})
	checkV2(t, dist3, srcs, "")
	if _, err := os.Stat(filepath.Join(dist3, ".well-known", "skills")); !os.IsNotExist(err) {
		t.Errorf("--no-legacy left .well-known/skills in the bundle (%v)", err)
	}
	for _, a := range res3.Artifacts {
		if strings.HasPrefix(a.Path, ".well-known/skills") {
			t.Errorf("--no-legacy lists %s", a.Path)
		}
	}
	for _, doc := range []string{"checksums.txt", "mcp/resources.json", ".skillpack/build.json"} {
		data, _ := os.ReadFile(filepath.Join(dist3, doc))
		if strings.Contains(string(data), ".well-known/skills/") {
			t.Errorf("--no-legacy: %s mentions the legacy tree", doc)
		}
	}
	if a, b := snapshot(t, filepath.Join(dist, ".well-known/agent-skills"))["index.json"], snapshot(t, filepath.Join(dist3, ".well-known/agent-skills"))["index.json"]; a.Data != b.Data {
		t.Error("the v0.2 index depends on --no-legacy")
	}
	if len(res.Skills) != len(srcs) {
		t.Errorf("built %d skills from %d folders", len(res.Skills), len(srcs))
	}
}

// checkV2 checks the discovery v0.2.0 index; base is the --base-url, or
// "" for URLs relative to the index.
func checkV2(t *testing.T, dist string, srcs map[string]srcSkill, base string) {
	t.Helper()
	const dir = ".well-known/agent-skills/"
	top, _ := fields(t, "v0.2 index", readJSON(t, filepath.Join(dist, dir+"index.json")), "$schema")
	if top["$schema"] != v2Schema {
		t.Errorf("v0.2 $schema is %v, want exactly %s", top["$schema"], v2Schema)
	}
	skills := array(t, "v0.2 skills", top["skills"])
	var seen []string
	for i, v := range skills {
		where := fmt.Sprintf("v0.2 skills[%d]", i)
		_, f := fields(t, where, v, "name", "type", "description", "url", "digest", "contentDigest")
		name, typ, desc, u, dig, cd := f[0], f[1], f[2], f[3], f[4], f[5]
		checkName(t, where, name)
		checkDescription(t, where, desc)
		seen = append(seen, name)
		s, ok := srcs[name]
		if !ok {
			t.Errorf("%s: %q is no skill of the input", where, name)
			continue
		}
		if !digestRE.MatchString(dig) {
			t.Errorf("%s: digest %q", where, dig)
		}
		if desc != s.fm["description"] {
			t.Errorf("%s: description %q is not the frontmatter's %q", where, desc, s.fm["description"])
		}
		if cd != contentDigest(s.files) {
			t.Errorf("%s: contentDigest %s, want %s", where, cd, contentDigest(s.files))
		}
		// Follow the URL as a reader would: relative to the index, or
		// absolute under the base URL.
		var rel string
		if base == "" {
			pu, err := url.Parse(u)
			if err != nil || pu.IsAbs() || strings.HasPrefix(u, "/") {
				t.Errorf("%s: url %q is not relative to the index", where, u)
				continue
			}
			rel = dir + u
		} else {
			var ok bool
			if rel, ok = strings.CutPrefix(u, base); !ok {
				t.Errorf("%s: url %q is not under %s", where, u, base)
				continue
			}
		}
		got, _ := fileAt(t, dist, rel)
		if got != dig {
			t.Errorf("%s: url %s holds %s, the index says %s", where, u, got, dig)
		}
		switch {
		case len(s.files) == 1:
			if typ != "skill-md" || !strings.HasSuffix(rel, name+"/SKILL.md") {
				t.Errorf("%s: a single-file skill is %s at %s, want skill-md at %s/SKILL.md", where, typ, rel, name)
			}
		default:
			arch := strings.TrimPrefix(rel, dir)
			if typ != "archive" || !strings.HasPrefix(arch, name+"-") || !strings.HasSuffix(arch, ".tar.gz") ||
				strings.Contains(arch, "/") || arch != name+"-"+dig[7:23]+".tar.gz" {
				t.Errorf("%s: a skill with %d files is %s at %s, want archive at %s-<hex16>.tar.gz", where, len(s.files), typ, rel, name)
			}
			sameEntries(t, where+" archive", readTarGz(t, filepath.Join(dist, rel), epoch1980), s.files)
		}
	}
	if !slices.IsSorted(seen) || len(seen) != len(srcs) {
		t.Errorf("v0.2 skills %v: want all %d skills, sorted by name", seen, len(srcs))
	}
}

// v1Bad is what a v0.1 path must not contain; the skills CLI rejects the
// whole legacy index for one such path.
var v1Bad = regexp.MustCompile(`[\\?#\[\]%]|\.\.|[^\x20-\x7e]`)

func TestIndexV1(t *testing.T) {
	src, dist, _ := builtExamples(t, Options{})
	srcs := readSources(t, src)
	top := readJSON(t, filepath.Join(dist, ".well-known/skills/index.json")).(map[string]any)
	if _, ok := top["$schema"]; ok {
		t.Error("the v0.1 index has a $schema")
	}
	listed := map[string]bool{".well-known/skills/index.json": true}
	var seen []string
	for i, v := range array(t, "v0.1 skills", top["skills"]) {
		where := fmt.Sprintf("v0.1 skills[%d]", i)
		m, f := fields(t, where, v, "name", "description")
		name := f[0]
		checkName(t, where, name)
		checkDescription(t, where, f[1])
		seen = append(seen, name)
		s := srcs[name]
		files := array(t, where+" files", m["files"])
		if len(files) == 0 || files[0] != "SKILL.md" {
			t.Errorf("%s: files %v must be non-empty with SKILL.md first", where, files)
		}
		var paths []string
		for _, p := range files {
			ps, _ := p.(string)
			if ps == "" || strings.HasPrefix(ps, "/") || v1Bad.MatchString(ps) {
				t.Errorf("%s: file %q breaks the v0.1 path rules", where, p)
			}
			paths = append(paths, ps)
			rel := ".well-known/skills/" + name + "/" + ps
			listed[rel] = true
			data, err := os.ReadFile(filepath.Join(dist, rel))
			if err != nil {
				t.Errorf("%s: %s is listed but not served: %v", where, rel, err)
			}
			if i := slices.IndexFunc(s.files, func(e entry) bool { return e.Name == ps }); i < 0 || s.files[i].Data != string(data) {
				t.Errorf("%s: served %s is not the source's file", where, rel)
			}
		}
		sort.Strings(paths)
		if !reflect.DeepEqual(paths, names(s.files)) {
			t.Errorf("%s: files %v, want every file of the skill %v", where, paths, names(s.files))
		}
	}
	if !slices.IsSorted(seen) || len(seen) != len(srcs) {
		t.Errorf("v0.1 skills %v: want all %d, sorted", seen, len(srcs))
	}
	// The legacy tree holds exactly what the index lists.
	filepath.WalkDir(filepath.Join(dist, ".well-known/skills"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dist, p)
			if !listed[filepath.ToSlash(rel)] {
				t.Errorf("%s is in the legacy tree but not in its index", rel)
			}
		}
		return err
	})
}

func TestIndexMCP(t *testing.T) {
	src, dist, _ := builtExamples(t, Options{})
	srcs := readSources(t, src)

	// mcp/skills.json: the skills of a skills/list result.
	var uris []string
	for i, v := range array(t, "mcp/skills.json", readJSON(t, filepath.Join(dist, "mcp/skills.json"))) {
		where := fmt.Sprintf("mcp/skills.json[%d]", i)
		m, f := fields(t, where, v, "uri")
		uri := f[0]
		uris = append(uris, uri)
		path, ok := strings.CutPrefix(uri, "skill://")
		name, ok2 := strings.CutSuffix(path, "/SKILL.md")
		fm, _ := m["frontmatter"].(map[string]any)
		if !ok || !ok2 || fm == nil || fm["name"] != name {
			t.Errorf("%s: uri %s: the skill path's last segment must equal frontmatter.name (%v)", where, uri, fm["name"])
			continue
		}
		s := srcs[name]
		if !reflect.DeepEqual(fm, s.fm) {
			t.Errorf("%s: frontmatter %v is not SKILL.md's %v", where, fm, s.fm)
		}
		var res []entry
		for j, r := range array(t, where+" resources", m["resources"]) {
			rm, rf := fields(t, fmt.Sprintf("%s.resources[%d]", where, j), r, "uri", "digest")
			size, _ := rm["size"].(float64)
			p, _ := strings.CutPrefix(rf[0], "skill://"+name+"/")
			res = append(res, entry{Name: p, Data: rf[1] + fmt.Sprint(int64(size))})
		}
		var want []entry
		for _, e := range s.files {
			want = append(want, entry{Name: e.Name, Data: digestOf(e.Data) + fmt.Sprint(len(e.Data))})
		}
		sameEntries(t, where+" resources", res, want)
	}
	if !slices.IsSorted(uris) || len(uris) != len(srcs) {
		t.Errorf("mcp/skills.json uris %v: want every skill, sorted by uri", uris)
	}

	// mcp/resources.json: every URI a thin server may serve.
	byURI := map[string]string{} // uri -> dist path
	uris = nil
	for i, v := range array(t, "mcp/resources.json", readJSON(t, filepath.Join(dist, "mcp/resources.json"))) {
		where := fmt.Sprintf("mcp/resources.json[%d]", i)
		m, f := fields(t, where, v, "uri", "path", "mimeType", "digest")
		uri, path, mime, dig := f[0], f[1], f[2], f[3]
		uris = append(uris, uri)
		byURI[uri] = path
		if filepath.IsAbs(path) || strings.Contains(path, "..") {
			t.Errorf("%s: path %q is not inside dist", where, path)
		}
		got, n := fileAt(t, dist, path)
		if size, _ := m["size"].(float64); got != dig || int64(size) != n {
			t.Errorf("%s: %s is %s %d bytes, listed as %s %v", where, path, got, n, dig, m["size"])
		}
		wantMime := map[string]string{".md": "text/markdown", ".py": "text/x-python", ".sh": "text/x-shellscript",
			".gz": "application/gzip", ".zip": "application/zip", ".json": "application/json"}[filepath.Ext(uri)]
		if mime != wantMime {
			t.Errorf("%s: mimeType %q, want %q", where, mime, wantMime)
		}
	}
	if !slices.IsSorted(uris) {
		t.Error("mcp/resources.json is not sorted by uri")
	}
	if byURI["skill://index.json"] != "mcp/index.json" {
		t.Errorf("skill://index.json is served from %q, want mcp/index.json", byURI["skill://index.json"])
	}
	n := 1
	for name, s := range srcs {
		for _, e := range s.files {
			if p := byURI["skill://"+name+"/"+e.Name]; p != ".well-known/agent-skills/"+name+"/"+e.Name {
				t.Errorf("resources.json: skill://%s/%s is served from %q", name, e.Name, p)
			}
			n++
		}
		n += 2 // archives, checked through mcp/index.json below
	}
	if len(byURI) != n {
		t.Errorf("resources.json lists %d URIs, want %d (each file, two archives per skill, the index)", len(byURI), n)
	}

	// mcp/index.json: the legacy skill://index.json every older reader accepts.
	top, _ := fields(t, "mcp/index.json", readJSON(t, filepath.Join(dist, "mcp/index.json")))
	var seen []string
	for i, v := range array(t, "mcp/index.json skills", top["skills"]) {
		where := fmt.Sprintf("mcp/index.json skills[%d]", i)
		m, f := fields(t, where, v, "name", "type", "description", "url", "digest")
		name := f[0]
		seen = append(seen, name)
		s := srcs[name]
		if f[1] != "skill-md" || f[3] != "skill://"+name+"/SKILL.md" || f[4] != digestOf(s.files[slices.IndexFunc(s.files, func(e entry) bool { return e.Name == "SKILL.md" })].Data) {
			t.Errorf("%s: type %s url %s digest %s, want skill-md at skill://%s/SKILL.md with its digest", where, f[1], f[3], f[4], name)
		}
		if fm, _ := m["frontmatter"].(map[string]any); !reflect.DeepEqual(fm, s.fm) {
			t.Errorf("%s: frontmatter %v is not SKILL.md's", where, fm)
		}
		archives := array(t, where+" archives", m["archives"])
		if len(archives) != 2 {
			t.Errorf("%s: %d archives, want tar.gz and zip", where, len(archives))
		}
		for j, a := range archives {
			_, af := fields(t, fmt.Sprintf("%s.archives[%d]", where, j), a, "url", "mimeType", "digest")
			file := strings.TrimPrefix(af[0], "skill://")
			got, _ := fileAt(t, dist, ".well-known/agent-skills/"+file)
			wantMime := map[bool]string{true: "application/gzip", false: "application/zip"}[strings.HasSuffix(file, ".tar.gz")]
			if got != af[2] || af[1] != wantMime || byURI[af[0]] == "" || !strings.HasPrefix(file, name+"-"+af[2][7:23]+".") {
				t.Errorf("%s: archive %v does not match the file it names (%s) or resources.json", where, a, got)
			}
		}
	}
	if !slices.IsSorted(seen) || len(seen) != len(srcs) {
		t.Errorf("mcp/index.json skills %v: want all, sorted", seen)
	}
}

// TestChecksums runs the real sha256sum -c over checksums.txt and requires
// it to cover every archive, every JSON index, the catalog and its pages.
func TestChecksums(t *testing.T) {
	_, dist, res := builtExamples(t, Options{})
	sha := tool(t, "sha256sum")
	out := run(t, dist, sha, "--strict", "-c", "checksums.txt")
	var checked []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		p, ok := strings.CutSuffix(line, ": OK")
		if !ok {
			t.Errorf("sha256sum: %s", line)
		}
		checked = append(checked, p)
	}
	want := []string{".well-known/agent-skills/index.json", ".well-known/skills/index.json", "index.html", "mcp/index.json", "mcp/resources.json", "mcp/skills.json"}
	for _, s := range res.Skills {
		want = append(want, s.TarGz.Path, s.Zip.Path, layout.CatalogPage(s.Name))
	}
	sort.Strings(want)
	sort.Strings(checked)
	if !reflect.DeepEqual(checked, want) {
		t.Errorf("checksums.txt covers %v\nwant %v", checked, want)
	}
}

// TestArtifacts checks the build summary (what --json prints) and the
// build record against the files on disk: every file listed, with its
// digest and size, and nothing else in the folder.
func TestArtifacts(t *testing.T) {
	_, dist, res := builtExamples(t, Options{})
	onDisk := map[string]string{}
	for p, n := range snapshot(t, dist) {
		if n.Mode.IsRegular() {
			onDisk[p] = digestOf(n.Data) + " " + fmt.Sprint(len(n.Data))
		}
	}
	listed := map[string]string{}
	for _, a := range res.Artifacts {
		listed[a.Path] = string(a.Digest) + " " + fmt.Sprint(a.Size)
	}
	if !reflect.DeepEqual(listed, onDisk) {
		for p := range onDisk {
			if listed[p] != onDisk[p] {
				t.Errorf("%s: on disk %s, summary says %q", p, onDisk[p], listed[p])
			}
		}
		for p := range listed {
			if _, ok := onDisk[p]; !ok {
				t.Errorf("%s is in the summary but not on disk", p)
			}
		}
	}
	for _, s := range res.Skills {
		for _, a := range []Artifact{s.TarGz, s.Zip} {
			if listed[a.Path] != string(a.Digest)+" "+fmt.Sprint(a.Size) {
				t.Errorf("skill %s: artifact %v does not match the file", s.Name, a)
			}
		}
	}
	var rec layout.Record
	if err := json.Unmarshal([]byte(snapshot(t, dist)[".skillpack/build.json"].Data), &rec); err != nil {
		t.Fatal(err)
	}
	recorded := slices.Clone(rec.Files)
	var files []string
	for p := range onDisk {
		files = append(files, p)
	}
	sort.Strings(files)
	if !reflect.DeepEqual(recorded, files) {
		t.Errorf("the build record lists %v\nthe folder holds %v", recorded, files)
	}
}
