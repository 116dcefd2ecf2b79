package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/skillpack/skillpack/skill"
)

var formatTool = Tool{Name: "skillpack", Version: "1.2.3", URI: "https://github.com/skillpack/skillpack"}

// trickyResult holds findings whose text the machine formats must escape:
// the characters that end GitHub command properties (":" ","), those that
// end a command (CR, LF), "%" and a literal "%0A" that must not be read as
// an escape, non-ASCII paths, whole-file findings (line 0), a line without a
// column, and a rule the registry does not know.
func trickyResult() *Result {
	return &Result{
		Skills: []*skill.Skill{{Dir: "odd: dir, 100%"}, {Dir: "café"}},
		Findings: []Finding{
			{Path: "odd: dir, 100%/SKILL.md", Line: 3, Column: 7, Rule: "name-format", Severity: Error,
				Message: `name "Bad_Name": use [a-z0-9-], no "_"`, Fix: `rename to "bad-name"`},
			{Path: "café/SKILL.md", Rule: "description-short", Severity: Warning,
				Message: "100% vague:\r\nsay what, when"},
			{Path: "café/refs/ünï.md", Line: 12, Rule: "link-broken", Severity: Info,
				Message: "50%0A literal, not a newline", Fix: "link it: [ünï](refs/ünï.md)\nor delete it"},
			{Path: "x/SKILL.md", Line: 1, Column: 1, Rule: "made-up-rule", Severity: Warning, Message: "no such rule"},
		},
	}
}

func formatString(t *testing.T, name string, res *Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := Format(&b, name, res, formatTool); err != nil {
		t.Fatalf("Format(%s): %v", name, err)
	}
	return b.String()
}

func TestFormatUnknown(t *testing.T) {
	err := Format(&bytes.Buffer{}, "xml", &Result{}, formatTool)
	if err == nil || !strings.Contains(err.Error(), `"xml"`) || !strings.Contains(err.Error(), "github, json, sarif, text") {
		t.Fatalf("Format(xml) = %v, want an error naming xml and the formats", err)
	}
}

func TestFormatText(t *testing.T) {
	res := &Result{Findings: []Finding{
		{Path: "pdf/SKILL.md", Line: 2, Column: 7, Rule: "name-format", Severity: Error,
			Message: `name "PDF" is not lowercase`, Fix: `use "pdf"`},
		{Path: "pdf/SKILL.md", Line: 9, Rule: "link-broken", Severity: Warning, Message: "refs/x.md does not exist"},
		{Path: "pdf/notes.md", Rule: "file-unreferenced", Severity: Info,
			Message: "nothing links to this file", Fix: "link it from SKILL.md or delete it"},
	}}
	want := `pdf/SKILL.md:2:7: error: name "PDF" is not lowercase [name-format]
    fix: use "pdf"
pdf/SKILL.md:9: warning: refs/x.md does not exist [link-broken]
pdf/notes.md: info: nothing links to this file [file-unreferenced]
    fix: link it from SKILL.md or delete it
`
	if got := formatString(t, "text", res); got != want {
		t.Errorf("text output:\n%s\nwant:\n%s", got, want)
	}
	if got := formatString(t, "text", &Result{}); got != "" {
		t.Errorf("text output for no findings = %q, want nothing", got)
	}
}

// One finding in many skills (a key every skill of a collection carries)
// is one entry of the text format, the first in full and the others by
// position; three are still listed one by one, and JSON lists each.
func TestFormatTextSame(t *testing.T) {
	var res Result
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		res.Findings = append(res.Findings, Finding{Path: s + "/SKILL.md", Line: 4, Column: 1, Rule: "unknown-key",
			Severity: Warning, Message: `unknown frontmatter key "requires" (profile clients)`, Fix: "move it under metadata"})
	}
	res.Findings = append(res.Findings, Finding{Path: "e/SKILL.md", Line: 5, Column: 1, Rule: "unknown-key",
		Severity: Warning, Message: `unknown frontmatter key "tags" (profile clients)`})
	want := `a/SKILL.md:4:1: warning: unknown frontmatter key "requires" (profile clients) [unknown-key]
    fix: move it under metadata
    also at 4 more places: b/SKILL.md:4:1, c/SKILL.md:4:1, d/SKILL.md:4:1, and 1 more (--format json lists each)
e/SKILL.md:5:1: warning: unknown frontmatter key "tags" (profile clients) [unknown-key]
`
	if got := formatString(t, "text", &res); got != want {
		t.Errorf("text output:\n%s\nwant:\n%s", got, want)
	}
	res.Findings = res.Findings[2:]
	if got := strings.Count(formatString(t, "text", &res), `"requires"`); got != 3 {
		t.Errorf("three findings alike are printed %d times, want each", got)
	}
	res.Findings = append(res.Findings, res.Findings...)
	if got := strings.Count(formatString(t, "json", &res), `requires`); got != 6 {
		t.Errorf("JSON holds %d of the 6 findings", got)
	}
}

func TestFormatJSON(t *testing.T) {
	res := trickyResult()
	var got struct {
		Tool     string    `json:"tool"`
		Version  string    `json:"version"`
		Skills   int       `json:"skills"`
		Errors   int       `json:"errors"`
		Warnings int       `json:"warnings"`
		Infos    int       `json:"infos"`
		Findings []Finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(formatString(t, "json", res)), &got); err != nil {
		t.Fatal(err)
	}
	if got.Tool != "skillpack" || got.Version != "1.2.3" || got.Skills != 2 {
		t.Errorf("tool, version, skills = %q, %q, %d; want skillpack, 1.2.3, 2", got.Tool, got.Version, got.Skills)
	}
	if got.Errors != 1 || got.Warnings != 2 || got.Infos != 1 {
		t.Errorf("errors, warnings, infos = %d, %d, %d; want 1, 2, 1", got.Errors, got.Warnings, got.Infos)
	}
	if !reflect.DeepEqual(got.Findings, res.Findings) {
		t.Errorf("findings did not survive the round trip:\n got %+v\nwant %+v", got.Findings, res.Findings)
	}

	// Scripts index the array without a nil check.
	if out := formatString(t, "json", &Result{}); !strings.Contains(out, `"findings": []`) {
		t.Errorf("json for no findings has no empty array:\n%s", out)
	}
}

func TestFormatGitHub(t *testing.T) {
	// Written from the escaping rules, not from the output: data escapes
	// % CR LF; property values also : and ,. Before that, the path, the
	// message and the fix are Printable: a line break in them shows as
	// "\n", and the only %0A left is the one before "Fix:".
	want := []string{
		`::error file=odd%3A dir%2C 100%25/SKILL.md,line=3,col=7,title=name-format::name "Bad_Name": use [a-z0-9-], no "_"%0AFix: rename to "bad-name"`,
		`::warning file=café/SKILL.md,title=description-short::100%25 vague:\r\nsay what, when`,
		`::notice file=café/refs/ünï.md,line=12,title=link-broken::50%250A literal, not a newline%0AFix: link it: [ünï](refs/ünï.md)\nor delete it`,
		`::warning file=x/SKILL.md,line=1,col=1,title=made-up-rule::no such rule`,
	}
	got := formatString(t, "github", trickyResult())
	if got != strings.Join(want, "\n")+"\n" {
		t.Errorf("github output:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if out := formatString(t, "github", &Result{}); out != "" {
		t.Errorf("github output for no findings = %q, want nothing", out)
	}
}

// ghCmd is a workflow command as the runner parses it.
type ghCmd struct {
	name  string
	props map[string]string
	data  string
}

// parseGHCommand reads a line as the runner does (ActionCommand.cs
// TryParseV2): the command runs from "::" to the next "::", its name ends
// at the first space, properties are split at "," and then at the first
// "=", and each part is unescaped.
func parseGHCommand(line string) (ghCmd, error) {
	if !strings.HasPrefix(line, "::") {
		return ghCmd{}, fmt.Errorf("no leading ::")
	}
	end := strings.Index(line[2:], "::")
	if end < 0 {
		return ghCmd{}, fmt.Errorf("no closing ::")
	}
	info, data := line[2:2+end], line[2+end+2:]
	c := ghCmd{name: info, props: map[string]string{}, data: ghUnescapeData(data)}
	if name, props, ok := strings.Cut(info, " "); ok {
		c.name = name
		for _, p := range strings.Split(props, ",") {
			k, v, ok := strings.Cut(p, "=")
			if !ok || k == "" {
				return ghCmd{}, fmt.Errorf("bad property %q", p)
			}
			c.props[k] = ghUnescapeProperty(v)
		}
	}
	return c, nil
}

// The runner undoes the escapes in this order, "%25" last so that an
// escaped "%" cannot combine with what follows into another escape.
func ghUnescapeData(s string) string {
	s = strings.ReplaceAll(s, "%0D", "\r")
	s = strings.ReplaceAll(s, "%0A", "\n")
	return strings.ReplaceAll(s, "%25", "%")
}

func ghUnescapeProperty(s string) string {
	s = strings.ReplaceAll(s, "%0D", "\r")
	s = strings.ReplaceAll(s, "%0A", "\n")
	s = strings.ReplaceAll(s, "%3A", ":")
	s = strings.ReplaceAll(s, "%2C", ",")
	return strings.ReplaceAll(s, "%25", "%")
}

func TestFormatGitHubRoundTrip(t *testing.T) {
	res := trickyResult()
	lines := strings.Split(strings.TrimSuffix(formatString(t, "github", res), "\n"), "\n")
	if len(lines) != len(res.Findings) {
		t.Fatalf("%d lines for %d findings: a raw newline leaked", len(lines), len(res.Findings))
	}
	wantCmd := map[Severity]string{Error: "error", Warning: "warning", Info: "notice"}
	for i, f := range res.Findings {
		c, err := parseGHCommand(lines[i])
		if err != nil {
			t.Fatalf("line %d %q: %v", i+1, lines[i], err)
		}
		msg := Printable(f.Message)
		if f.Fix != "" {
			msg += "\nFix: " + Printable(f.Fix)
		}
		if c.name != wantCmd[f.Severity] || c.props["file"] != Printable(f.Path) || c.props["title"] != f.Rule || c.data != msg {
			t.Errorf("line %d decodes to %s file=%q title=%q data=%q\nwant %s file=%q title=%q data=%q",
				i+1, c.name, c.props["file"], c.props["title"], c.data, wantCmd[f.Severity], Printable(f.Path), f.Rule, msg)
		}
		for key, n := range map[string]int{"line": f.Line, "col": f.Column} {
			v, ok := c.props[key]
			if n == 0 || (key == "col" && f.Line == 0) {
				if ok {
					t.Errorf("line %d: %s=%s for a finding without one", i+1, key, v)
				}
			} else if v != strconv.Itoa(n) {
				t.Errorf("line %d: %s=%q, want %d", i+1, key, v, n)
			}
		}
	}
}

// FuzzGitHubEscape checks that whatever a message or path holds, the
// runner reads back exactly its Printable text, with no control character
// left, and the command stays on one line.
func FuzzGitHubEscape(f *testing.F) {
	for _, s := range []string{"", "%", "%25", "%0A", "a:b,c", "\r\n", "%%0D::x", "ünï,:%\n", "\x1b[31m\x00\t\u202e\u009b\xff"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, path, msg string) {
		var b bytes.Buffer
		res := &Result{Findings: []Finding{{Path: path, Line: 1, Rule: "r", Severity: Error, Message: msg}}}
		if err := formatGitHub(&b, res, Tool{}); err != nil {
			t.Fatal(err)
		}
		line, ok := strings.CutSuffix(b.String(), "\n")
		if !ok || strings.ContainsAny(line, "\r\n") {
			t.Fatalf("not one line: %q", b.String())
		}
		c, err := parseGHCommand(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if path != "" && c.props["file"] != Printable(path) {
			t.Errorf("file %q came back as %q, want %q", path, c.props["file"], Printable(path))
		}
		if c.data != Printable(msg) {
			t.Errorf("message %q came back as %q, want %q", msg, c.data, Printable(msg))
		}
		for _, v := range []string{c.props["file"], c.data} {
			if Printable(v) != v {
				t.Errorf("%q came back from the runner with characters Printable escapes", v)
			}
		}
	})
}

// sarifSchemaFile is the official OASIS SARIF 2.1.0 schema
// (sarif-schema-2.1.0.json from oasis-tcs/sarif-spec), checked in so the
// tests run offline.
const sarifSchemaFile = "testdata/sarif-2.1.0.schema.json"

// offlineLoader refuses every load, so a schema that refers outside itself
// fails the test instead of reaching the network.
type offlineLoader struct{}

func (offlineLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("offline: refusing to load %s", u)
}

func sarifValidator(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.FromSlash(sarifSchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", sarifSchemaFile, err)
	}
	m, _ := doc.(map[string]any)
	id, _ := m["$id"].(string)
	version, _ := m["properties"].(map[string]any)["version"].(map[string]any)
	if m["$schema"] != "http://json-schema.org/draft-07/schema#" || id == "" ||
		!reflect.DeepEqual(version["enum"], []any{"2.1.0"}) {
		t.Fatalf("%s is not the draft-07 SARIF 2.1.0 schema: $schema %v, $id %v, version %v",
			sarifSchemaFile, m["$schema"], m["$id"], version["enum"])
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(offlineLoader{})
	c.DefaultDraft(jsonschema.Draft7)
	c.AssertFormat() // uri, uri-reference: catch unencoded paths
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compiling %s: %v", sarifSchemaFile, err)
	}
	return sch
}

func validateSARIF(t *testing.T, sch *jsonschema.Schema, doc []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	return sch.Validate(inst)
}

// sarifOut mirrors the parts of SARIF the tests look at; it is written
// apart from the formatter's types so that a renamed field shows.
type sarifOut struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name           string `json:"name"`
				Version        string `json:"version"`
				InformationURI string `json:"informationUri"`
				Rules          []struct {
					ID               string `json:"id"`
					Name             string `json:"name"`
					ShortDescription struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
					FullDescription struct {
						Text string `json:"text"`
					} `json:"fullDescription"`
					Help struct {
						Text     string `json:"text"`
						Markdown string `json:"markdown"`
					} `json:"help"`
					DefaultConfiguration struct {
						Level string `json:"level"`
					} `json:"defaultConfiguration"`
					Properties struct {
						Tags []string `json:"tags"`
					} `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		OriginalURIBaseIDs map[string]struct {
			URI string `json:"uri"`
		} `json:"originalUriBaseIds"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex *int   `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region *struct {
						StartLine   *int `json:"startLine"`
						StartColumn *int `json:"startColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

func TestFormatSARIFValid(t *testing.T) {
	sch := sarifValidator(t)
	for name, res := range map[string]*Result{
		"tricky":  trickyResult(),
		"empty":   {},
		"no path": {Findings: []Finding{{Rule: "name-duplicate", Severity: Error, Message: "registry-wide"}}},
		// With originalUriBaseIds: the checkout's root, a file: URI.
		"with base": {Base: t.TempDir(), Findings: trickyResult().Findings},
	} {
		out := formatString(t, "sarif", res)
		if err := validateSARIF(t, sch, []byte(out)); err != nil {
			t.Errorf("%s: output does not validate against SARIF 2.1.0:\n%v\n%s", name, err, out)
		}
	}
}

// The validation must be able to fail, or the test above proves nothing.
func TestFormatSARIFInvalidRejected(t *testing.T) {
	sch := sarifValidator(t)
	out := formatString(t, "sarif", trickyResult())
	for name, mutate := range map[string]func(log map[string]any){
		"level fatal": func(log map[string]any) {
			sarifPath(log, "runs", 0, "results", 0).(map[string]any)["level"] = "fatal"
		},
		"startLine 0": func(log map[string]any) {
			sarifPath(log, "runs", 0, "results", 0, "locations", 0, "physicalLocation", "region").(map[string]any)["startLine"] = 0
		},
		"no message": func(log map[string]any) {
			delete(sarifPath(log, "runs", 0, "results", 1).(map[string]any), "message")
		},
		"version 2.0.0": func(log map[string]any) { log["version"] = "2.0.0" },
		"unencoded uri": func(log map[string]any) {
			sarifPath(log, "runs", 0, "results", 0, "locations", 0, "physicalLocation", "artifactLocation").(map[string]any)["uri"] = `odd: dir\SKILL.md`
		},
	} {
		var log map[string]any
		if err := json.Unmarshal([]byte(out), &log); err != nil {
			t.Fatal(err)
		}
		mutate(log)
		doc, _ := json.Marshal(log)
		if err := validateSARIF(t, sch, doc); err == nil {
			t.Errorf("%s: invalid SARIF passed validation", name)
		}
	}
}

// sarifPath walks decoded JSON by keys and indexes.
func sarifPath(v any, steps ...any) any {
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			v = v.(map[string]any)[s]
		case int:
			v = v.([]any)[s]
		}
	}
	return v
}

// TestFormatSARIFLimit writes more results than GitHub takes in a run:
// the log keeps the most severe, in path order.
func TestFormatSARIFLimit(t *testing.T) {
	res := &Result{}
	for i := range MaxSARIFResults + 10 {
		sev := Warning
		if i%1000 == 999 || i == MaxSARIFResults+9 { // the last is an error
			sev = Error
		}
		res.Findings = append(res.Findings, Finding{Path: fmt.Sprintf("s%05d/SKILL.md", i), Rule: "name-format", Severity: sev, Message: "m"})
	}
	var log sarifOut
	if err := json.Unmarshal([]byte(formatString(t, "sarif", res)), &log); err != nil {
		t.Fatal(err)
	}
	rs := log.Runs[0].Results
	errs := 0
	for _, r := range rs {
		if r.Level == "error" {
			errs++
		}
	}
	last := rs[len(rs)-1].Locations[0].PhysicalLocation.ArtifactLocation.URI
	if len(rs) != MaxSARIFResults || errs != 26 || last != "s25009/SKILL.md" {
		t.Errorf("%d results, %d errors, the last %s; want %d, every one of the 26 errors, the last last", len(rs), errs, last, MaxSARIFResults)
	}
}

func TestFormatSARIFFields(t *testing.T) {
	res := trickyResult()
	out := formatString(t, "sarif", res)
	var log sarifOut
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || !strings.HasPrefix(log.Schema, "https://") || len(log.Runs) != 1 {
		t.Fatalf("version %q, $schema %q, %d runs; want 2.1.0, a URL, one run", log.Version, log.Schema, len(log.Runs))
	}
	run := log.Runs[0]
	drv := run.Tool.Driver
	if drv.Name != formatTool.Name || drv.Version != formatTool.Version || drv.InformationURI != formatTool.URI {
		t.Errorf("driver = %q %q %q, want %q %q %q", drv.Name, drv.Version, drv.InformationURI,
			formatTool.Name, formatTool.Version, formatTool.URI)
	}

	levels := map[Severity]string{Error: "error", Warning: "warning", Info: "note"}
	rules := Rules()
	if len(drv.Rules) != len(rules) {
		t.Fatalf("%d rules in SARIF, %d registered: every rule must be listed", len(drv.Rules), len(rules))
	}
	for i, r := range rules {
		got := drv.Rules[i]
		if got.ID != r.ID || got.ShortDescription.Text != r.Title || !strings.HasPrefix(r.Explain, got.FullDescription.Text) ||
			utf8.RuneCountInString(got.FullDescription.Text) > 1024 || len(got.FullDescription.Text) < min(len(r.Explain), 200) ||
			got.DefaultConfiguration.Level != levels[r.Severity] ||
			!reflect.DeepEqual(got.Properties.Tags, []string{string(r.Category)}) {
			t.Errorf("rule %d = %+v\ndoes not describe %s", i, got, r.ID)
		}
		if got.Name == "" || strings.Contains(got.Name, "-") || strings.ToLower(got.Name) != strings.ReplaceAll(r.ID, "-", "") {
			t.Errorf("rule %s: name %q, want the ID in TitleCase", r.ID, got.Name)
		}
		for _, h := range []string{got.Help.Text, got.Help.Markdown} {
			if !strings.Contains(h, r.Explain) || !strings.Contains(h, strings.TrimSpace(r.Bad)) || !strings.Contains(h, strings.TrimSpace(r.Good)) {
				t.Errorf("rule %s: help %q lacks the explanation or an example", r.ID, h)
			}
		}
	}
	named := ""
	for _, r := range drv.Rules {
		if r.ID == "skill-md-name" {
			named = r.Name
		}
	}
	if named != "SkillMdName" {
		t.Errorf("skill-md-name is named %q, want SkillMdName", named)
	}

	if len(run.Results) != len(res.Findings) {
		t.Fatalf("%d results for %d findings", len(run.Results), len(res.Findings))
	}
	for i, f := range res.Findings {
		r := run.Results[i]
		if r.RuleID != f.Rule || r.Level != levels[f.Severity] {
			t.Errorf("result %d: rule %q level %q, want %q %q", i, r.RuleID, r.Level, f.Rule, levels[f.Severity])
		}
		switch {
		case Lookup(f.Rule) == nil && r.RuleIndex != nil:
			t.Errorf("result %d: ruleIndex %d for unregistered rule %s", i, *r.RuleIndex, f.Rule)
		case Lookup(f.Rule) != nil && (r.RuleIndex == nil || drv.Rules[*r.RuleIndex].ID != f.Rule):
			t.Errorf("result %d: ruleIndex %v does not point at %s", i, r.RuleIndex, f.Rule)
		}
		msg := Printable(f.Message)
		if f.Fix != "" {
			msg += ". Fix: " + Printable(f.Fix)
		}
		if r.Message.Text != msg {
			t.Errorf("result %d: message %q, want %q", i, r.Message.Text, msg)
		}
		if len(r.Locations) != 1 {
			t.Errorf("result %d: %d locations, want 1", i, len(r.Locations))
			continue
		}
		loc := r.Locations[0].PhysicalLocation
		u, err := url.Parse(loc.ArtifactLocation.URI)
		if err != nil || u.IsAbs() || strings.TrimPrefix(u.Path, "./") != f.Path || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" {
			t.Errorf("result %d: location %+v (%v) does not name %q under %%SRCROOT%%", i, loc.ArtifactLocation, err, f.Path)
		}
		switch reg := loc.Region; {
		case f.Line == 0:
			if reg == nil || reg.StartLine == nil || *reg.StartLine != 1 || reg.StartColumn != nil {
				t.Errorf("result %d: region %+v for a whole file's finding, want startLine 1 (GitHub places a result by it)", i, reg)
			}
		case reg == nil || reg.StartLine == nil || *reg.StartLine != f.Line:
			t.Errorf("result %d: region %+v, want startLine %d", i, reg, f.Line)
		case f.Column == 0 && reg.StartColumn != nil:
			t.Errorf("result %d: startColumn %d for a finding without a column", i, *reg.StartColumn)
		case f.Column > 0 && (reg.StartColumn == nil || *reg.StartColumn != f.Column):
			t.Errorf("result %d: startColumn %v, want %d", i, reg.StartColumn, f.Column)
		}
	}

	// Exact where it is ours to choose: spaces, "%" and non-ASCII are
	// percent-encoded, and a colon in the first segment is guarded. The
	// schema cannot catch the colon: its uri-reference check is Go's
	// url.Parse, which reads "odd: dir, 100%/SKILL.md" as scheme "odd", and
	// so would GitHub.
	for i, want := range []string{"./odd:%20dir,%20100%25/SKILL.md", "caf%C3%A9/SKILL.md"} {
		if got := run.Results[i].Locations[0].PhysicalLocation.ArtifactLocation.URI; got != want {
			t.Errorf("result %d: uri %q, want %q", i, got, want)
		}
	}

	if again := formatString(t, "sarif", trickyResult()); again != out {
		t.Error("two runs over the same findings wrote different SARIF")
	}
	if !strings.Contains(formatString(t, "sarif", &Result{}), `"results": []`) {
		t.Error("a clean run must still carry an empty results array")
	}
}

func TestSARIFCodeBlock(t *testing.T) {
	for in, want := range map[string]string{
		"a: b\n":            "```\na: b\n```",
		"```md\nx\n```":     "````\n```md\nx\n```\n````",
		"use `x` or ````y`": "`````\nuse `x` or ````y`\n`````",
	} {
		if got := sarifCodeBlock(in); got != want {
			t.Errorf("sarifCodeBlock(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFormatCheckoutPaths runs the two formats GitHub reads from a
// subfolder of a git work tree, as a workflow step with a
// working-directory does: their paths are the checkout's, which GitHub
// resolves them against, and SARIF says where that root is. A path that
// leaves the checkout is kept as it is.
func TestFormatCheckoutPaths(t *testing.T) {
	root := t.TempDir()
	base := filepath.Join(root, "apps", "agent")
	for _, d := range []string{filepath.Join(root, ".git"), base} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	res := &Result{Base: base, Findings: []Finding{
		{Path: "skills/demo/SKILL.md", Line: 2, Rule: "name-format", Severity: Error, Message: "m"},
		{Path: "../../../elsewhere/SKILL.md", Line: 1, Rule: "name-format", Severity: Error, Message: "m"},
	}}
	var log sarifOut
	if err := json.Unmarshal([]byte(formatString(t, "sarif", res)), &log); err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range log.Runs[0].Results {
		uris = append(uris, r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	}
	if want := []string{"apps/agent/skills/demo/SKILL.md", "../../../elsewhere/SKILL.md"}; !slices.Equal(uris, want) {
		t.Errorf("SARIF uris %q, want %q", uris, want)
	}
	if got, want := log.Runs[0].OriginalURIBaseIDs["%SRCROOT%"].URI, "file://"+filepath.ToSlash(root)+"/"; got != want {
		t.Errorf("%%SRCROOT%% is %q, want %q", got, want)
	}
	gh := formatString(t, "github", res)
	if !strings.Contains(gh, "file=apps/agent/skills/demo/SKILL.md,line=2") || !strings.Contains(gh, "file=../../../elsewhere/SKILL.md,") {
		t.Errorf("github annotations name other files:\n%s", gh)
	}
}

// Rel spells a path far off absolute, as the go command does, where it
// climbed to the root and down ("../../../../work/x/SKILL.md" from the
// home folder); OnDisk reads both back; the checkout's formats keep an
// absolute path inside the checkout relative to it.
func TestRelFarOff(t *testing.T) {
	root := t.TempDir()
	base := filepath.Join(root, "a", "b", "c", "d")
	for p, want := range map[string]string{
		filepath.Join(root, "a", "b", "c", "x", "SKILL.md"): "../x/SKILL.md",
		filepath.Join(base, "s", "SKILL.md"):                "s/SKILL.md",
		"/srv/s/SKILL.md":                                   "/srv/s/SKILL.md",
	} {
		got := Rel(base, p)
		if got != want {
			t.Errorf("Rel(%s) = %q, want %q", p, got, want)
		}
		if back := OnDisk(base, got); back != filepath.Clean(p) {
			t.Errorf("OnDisk(%q) = %q, want %q", got, back, p)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, rel := checkout(base)
	if got := rel(filepath.ToSlash(filepath.Join(root, "top", "SKILL.md"))); got != "top/SKILL.md" {
		t.Errorf("checkout's path of an absolute path inside it: %q, want top/SKILL.md", got)
	}
}
