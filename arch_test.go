package skillpack_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The import map of ARCHITECTURE.md, as data: for each package of the
// module (relative to the module path; "x/..." is x and everything below
// it), its layer and the packages of the module its non-test files may
// import. A package imports only what its entry lists, and every entry it
// lists sits in a lower layer (or, for a subtree entry, inside the same
// subtree), so a lower package can never import a higher one. Imports
// from outside the module are not the map's business.
//
// Tests may import more (serve's and verify's tests build a bundle with
// package build): a test is not linked into the binary and cannot make a
// cycle of the packages. The test-only helpers (internal/testtool,
// internal/signtest) are in no list, so only tests import them.
//
// Changing this map means changing the table "The import map" in
// ARCHITECTURE.md the same way: TestArchitecture checks that the two
// agree, and `go test -run TestArchitecture -update .` rewrites the table.
var importMap = map[string]rule{
	// 0: leaves. internal/ holds only leaves; templates only embeds.
	"internal/atomicfile": {0, nil},
	"internal/parallel":   {0, nil},
	"internal/version":    {0, nil},
	"internal/semver":     {0, nil},
	"internal/testtool":   {0, nil},
	"internal/signtest":   {0, nil},
	"internal/human":      {0, nil},
	"internal/jsonenc":    {0, nil},
	"internal/outlock":    {0, nil},
	"internal/smallfile":  {0, nil},
	"templates":           {0, nil},

	// 1: the model of a skill, its archives, the bundle's formats.
	"skill":  {1, []string{"internal/jsonenc", "internal/parallel", "internal/smallfile"}},
	"pack":   {1, []string{"internal/human"}},
	"layout": {1, []string{"internal/human", "internal/jsonenc", "internal/parallel", "internal/semver"}},
	"plugin": {1, []string{"internal/jsonenc", "internal/smallfile"}},

	// 2: what is computed from them: findings, the catalog page, a new skill.
	"lint":     {2, []string{"skill", "plugin", "pack", "layout", "internal/atomicfile", "internal/human", "internal/jsonenc", "internal/parallel", "internal/semver", "internal/smallfile"}},
	"catalog":  {2, []string{"skill", "layout", "templates", "internal/human", "internal/parallel"}},
	"scaffold": {2, []string{"skill", "layout", "templates"}},
	// dist: a built bundle read back, for everything downstream of the build.
	"bundle": {2, []string{"layout", "pack", "internal/parallel", "internal/smallfile"}},

	// 3: skillpack.yaml, read into each reader's settings; the build's own
	// machinery (reuse, scratch), behind build.
	"config": {3, []string{"lint", "skill", "layout", "internal/human", "internal/smallfile"}},
	"build/internal/...": {3, []string{
		"skill", "pack", "layout", "lint", "bundle",
		"internal/atomicfile", "internal/parallel", "internal/version",
		"build/internal/...",
	}},

	// 4: what a bundle is made and used by. None imports another: sign,
	// verify, serve and publish read a bundle only through layout.
	"build": {4, []string{
		"skill", "plugin", "pack", "layout", "lint", "catalog", "bundle",
		"internal/atomicfile", "internal/human", "internal/outlock", "internal/parallel", "internal/smallfile", "internal/version",
		"build/internal/...",
	}},
	"sign":   {4, []string{"layout", "internal/atomicfile", "internal/semver", "internal/version"}},
	"verify": {4, []string{"layout", "bundle", "pack", "skill", "internal/human", "internal/jsonenc", "internal/parallel", "internal/version"}},
	"serve":  {4, []string{"layout", "bundle", "skill", "catalog", "internal/human", "internal/parallel", "internal/version"}},

	"publish": {4, []string{"layout", "bundle", "internal/atomicfile", "internal/human", "internal/jsonenc", "internal/parallel", "internal/version"}},

	// 5: the publish targets, each on publish's reading of a bundle.
	"publish/...": {5, []string{
		"publish", "layout", "bundle", "pack",
		"internal/atomicfile", "internal/human", "internal/outlock", "internal/parallel", "internal/version",
		"publish/...",
	}},

	// 6, 7: the command layer and main.
	"cmd/skillpack/internal/cli": {6, []string{
		"build", "sign", "verify", "serve", "publish", "publish/...",
		"config", "lint", "catalog", "scaffold",
		"skill", "pack", "layout", "bundle", "templates",
		"internal/atomicfile", "internal/human", "internal/jsonenc", "internal/parallel", "internal/version",
	}},
	"cmd/skillpack": {7, []string{"cmd/skillpack/internal/cli"}},

	// Outside the layers: benchmark tooling (most of it behind the bench
	// build tag), never linked into skillpack, and this test.
	"bench/...": {outside, []string{anything}},
	"":          {outside, nil},
}

type rule struct {
	layer int
	may   []string
}

const (
	outside  = -1  // a layer for what is not linked into skillpack
	anything = "*" // in a may list: any package of the module
)

// A listed package as go list describes it.
type listed struct {
	ImportPath   string
	Module       *struct{ Path string }
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

func TestArchitecture(t *testing.T) {
	checkMapData(t)
	checkDoc(t)
	pkgs, mod := goList(t)
	checkImports(t, pkgs, mod)
}

// goList lists every package of the module with one go list call. The
// bench tag brings in the benchmark tools, so that the map covers them too.
func goList(t *testing.T) (map[string]listed, string) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH; the import map is checked with go list")
	}
	cmd := exec.Command(goTool, "list", "-e", "-tags", "bench",
		"-json=ImportPath,Module,Imports,TestImports,XTestImports,Error", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs := map[string]listed{}
	mod := ""
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.Error != nil {
			t.Errorf("go list %s: %s (its imports cannot be checked)", p.ImportPath, p.Error.Err)
		}
		if p.Module != nil {
			mod = p.Module.Path
		}
		pkgs[p.ImportPath] = p
	}
	if mod == "" {
		t.Fatal("go list names no module")
	}
	return pkgs, mod
}

// checkImports holds every package's imports to the map, and to the two
// rules that need no map: nothing outside cmd/ imports cmd/..., and a
// package under internal/ imports no module package outside internal/.
func checkImports(t *testing.T, pkgs map[string]listed, mod string) {
	rel := func(path string) (string, bool) {
		if path == mod {
			return "", true
		}
		r, ok := strings.CutPrefix(path, mod+"/")
		return r, ok
	}
	seen := map[string]bool{}
	for _, path := range slices.Sorted(maps.Keys(pkgs)) {
		p := pkgs[path]
		name, _ := rel(path)
		entry, r, mapped := lookup(name)
		if mapped {
			seen[entry] = true
		} else {
			t.Errorf("%s is in no entry of the import map: add it to importMap (arch_test.go) and to the table in ARCHITECTURE.md, with what it owns", show(name))
		}
		for _, imp := range p.Imports {
			dep, ok := rel(imp)
			if !ok {
				continue
			}
			if mapped && !allowed(r.may, dep) {
				t.Errorf("%s imports %s, which the import map does not allow (%s may import %s); a package imports only from lower layers: move the code, or if the import is right, change the map here and in ARCHITECTURE.md",
					show(name), show(dep), show(entry), showList(r.may))
			}
			if under(name, "internal") && !under(dep, "internal") {
				t.Errorf("%s imports %s: internal/ holds only leaves, which import nothing of the module outside internal/", show(name), show(dep))
			}
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if dep, ok := rel(imp); ok && under(dep, "cmd") && !under(name, "cmd") {
				t.Errorf("%s (or its tests) imports %s: nothing outside cmd/ imports the command packages", show(name), show(dep))
			}
		}
	}
	for entry := range importMap {
		if !seen[entry] && !strings.HasSuffix(entry, "/...") {
			t.Errorf("the import map has an entry for %s, which is not a package of the module: remove it here and from ARCHITECTURE.md", show(entry))
		}
	}
}

// checkMapData checks the map itself: every package a list names has an
// entry, sits in a lower layer than the lister (or in the lister's own
// subtree), and is not a test-only helper.
func checkMapData(t *testing.T) {
	testOnly := []string{"internal/testtool", "internal/signtest"}
	for _, entry := range slices.Sorted(maps.Keys(importMap)) {
		r := importMap[entry]
		for _, dep := range r.may {
			if dep == anything {
				if r.layer != outside {
					t.Errorf("import map: %s may import anything, but only what is outside the layers may", show(entry))
				}
				continue
			}
			d, ok := importMap[dep]
			switch {
			case !ok:
				t.Errorf("import map: %s may import %s, which has no entry", show(entry), show(dep))
			case dep == entry && strings.HasSuffix(entry, "/..."):
				// The packages of one subtree may import one another; Go forbids cycles.
			case r.layer != outside && d.layer >= r.layer:
				t.Errorf("import map: %s (layer %d) may import %s (layer %d), which is not below it", show(entry), r.layer, show(dep), d.layer)
			}
			if slices.Contains(testOnly, dep) {
				t.Errorf("import map: %s may import %s, a helper for tests only", show(entry), show(dep))
			}
		}
	}
}

// lookup finds the entry of a package: its own, or the nearest subtree
// entry above it.
func lookup(name string) (entry string, r rule, ok bool) {
	if r, ok := importMap[name]; ok {
		return name, r, true
	}
	for p := name; p != "" && p != "."; {
		if r, ok := importMap[p+"/..."]; ok {
			return p + "/...", r, true
		}
		i := strings.LastIndex(p, "/")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return "", rule{}, false
}

// allowed reports whether a may list admits the package dep.
func allowed(may []string, dep string) bool {
	for _, m := range may {
		if m == anything || m == dep {
			return true
		}
		if tree, ok := strings.CutSuffix(m, "/..."); ok && under(dep, tree) {
			return true
		}
	}
	return false
}

// under reports whether the package name is dir or below it.
func under(name, dir string) bool { return name == dir || strings.HasPrefix(name, dir+"/") }

func show(name string) string {
	if name == "" {
		return "the module root"
	}
	return name
}

func showList(may []string) string {
	if len(may) == 0 {
		return "nothing of the module"
	}
	return strings.Join(may, ", ")
}

var update = flag.Bool("update", false, "rewrite the import map table of ARCHITECTURE.md from importMap")

// The doc's table is the rows between these two lines of ARCHITECTURE.md.
const (
	tableStart = "<!-- import map: start (arch_test.go checks this table against importMap) -->"
	tableEnd   = "<!-- import map: end -->"
)

// checkDoc checks that ARCHITECTURE.md's import map table says what
// importMap says; with -update it rewrites the table instead.
func checkDoc(t *testing.T) {
	const path = "ARCHITECTURE.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the import map must be written in %s: %v", path, err)
	}
	head, rest, ok1 := strings.Cut(string(doc), tableStart+"\n")
	table, tail, ok2 := strings.Cut(rest, tableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no lines %q and %q around the import map", path, tableStart, tableEnd)
	}
	want := "| layer | package | may import |\n|---|---|---|\n" + strings.Join(tableRows(), "\n") + "\n"
	if table == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(head+tableStart+"\n"+want+tableEnd+tail), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's import map differs from importMap in arch_test.go; run: go test -run TestArchitecture -update .\nThe table must be:\n%s", path, want)
}

// tableRows renders importMap as the rows of the doc's table, by layer,
// then by name, with what is outside the layers last.
func tableRows() []string {
	names := slices.Collect(maps.Keys(importMap))
	order := func(n string) int {
		if l := importMap[n].layer; l != outside {
			return l
		}
		return 1 << 20
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := order(a) - order(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	rows := make([]string, 0, len(names))
	for _, n := range names {
		r := importMap[n]
		layer := "–"
		if r.layer != outside {
			layer = fmt.Sprint(r.layer)
		}
		may := "nothing"
		if len(r.may) > 0 {
			may = "`" + strings.Join(r.may, "`, `") + "`"
			if r.may[0] == anything {
				may = "anything"
			}
		}
		pkg := "`" + n + "`"
		if n == "" {
			pkg = "(module root: this test)"
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s |", layer, pkg, may))
	}
	return rows
}

// oneWay holds, for a job that has one mechanism, a pattern that only its
// owner's non-test files (and the exceptions named) may contain: the
// readers it replaced must not come back under another name.
var oneWay = []struct {
	job     string
	pattern *regexp.Regexp
	owners  []string // path prefixes
}{
	{"a bundle folder is read through bundle.Folder (an os.Root)", regexp.MustCompile(`os\.OpenRoot\(`),
		// verify/folder.go reads an installed skill folder, which is no bundle.
		[]string{"bundle/", "verify/folder.go"}},
	{"a file is hashed by bundle.HashFile or bundle.Hash", regexp.MustCompile(`func \w*[hH]ash\w*File\(|func SumFile\(`), []string{"bundle/"}},
	{"bytes are checked against a digest as they stream by bundle.Checked", regexp.MustCompile(`b\.want\.Digest|v\.want\b|checkedBlob|type verifying struct|errTampered`), []string{"bundle/"}},
	{"a file skillpack did not write is opened without blocking by smallfile.Open", regexp.MustCompile(`O_RDONLY\s*\|\s*syscall\.O_NONBLOCK`), []string{"internal/smallfile/"}},
	{"a bundle is read from where it is by a bundle.Source", regexp.MustCompile(`type (ObjectStore|Previous|Reader|source) interface|func ReadPublished\(|func NewReader\(`), []string{"bundle/"}},
	{"bytes are fetched over HTTP(S) by bundle.Site", regexp.MustCompile(`CheckRedirect:`), []string{"bundle/", "serve/"}},
	{"a document, the build record included, streams through layout's one JSON writer (stream)", regexp.MustCompile(`func newObject\(|type object struct`), nil},
	{"a publish target's scheme is told by the command's table (targetOf)", regexp.MustCompile(`HasPrefix\([^)]*(\.Scheme\b|scheme[A-Z]|"s3://"|"oci://"|"file://")`),
		[]string{"cmd/skillpack/internal/cli/targets.go"}},
	{"JSON for programs (documents, --json, reports, SARIF) is written in internal/jsonenc's one encoding", regexp.MustCompile(`json\.(NewEncoder|MarshalIndent)\(`),
		// Not documents: a JSON string inside frontmatter's conversion;
		// the inventory, compact and gzipped, which skillpack alone reads.
		// The release list and the baseline are still to move.
		[]string{"internal/jsonenc/", "publish/inventory.go", "lint/baseline.go"}},
	{"a correction is offered by human.DidYouMean", regexp.MustCompile(`\(did you mean %q\?\)`), []string{"internal/human/"}},
	{"a JSON decoding error is placed and said by jsonenc.Explain", regexp.MustCompile(`\b(se|te)\.Offset\b`), []string{"internal/jsonenc/"}},
}

func TestOneWay(t *testing.T) {
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (p == "bench" || p == "cmd/skillpack-sign" || strings.HasPrefix(d.Name(), ".")) && p != ".":
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go"):
			files = append(files, filepath.ToSlash(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range oneWay {
			if slices.ContainsFunc(w.owners, func(o string) bool { return strings.HasPrefix(f, o) }) {
				continue
			}
			if loc := w.pattern.FindIndex(data); loc != nil {
				t.Errorf("%s:%d: %q: %s", f, 1+bytes.Count(data[:loc[0]], []byte("\n")), data[loc[0]:loc[1]], w.job)
			}
		}
	}
}

// TestPackageDocs: every library package says, in at most 15 lines of
// its package doc, what it owns and what it must not do; the longer explanations
// belong in ARCHITECTURE.md, where they do not grow back into the code.
func TestPackageDocs(t *testing.T) {
	err := filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); dir != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		lines := map[string]int{} // by package name
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				return err
			}
			if f.Name.Name == "main" {
				continue // a command: its doc is its usage
			}
			n := lines[f.Name.Name]
			if f.Doc != nil && strings.HasPrefix(f.Doc.Text(), "Package ") {
				n = max(n, len(f.Doc.List))
			}
			lines[f.Name.Name] = n
		}
		for _, n := range lines {
			if n < 2 || n > 15 {
				t.Errorf("%s: the package doc has %d lines; write at most 15: what the package owns and must not do (the rest goes in ARCHITECTURE.md)", dir, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
