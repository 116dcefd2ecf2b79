package lint

import (
	"cmp"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillpack/skillpack/internal/jsonenc"
)

// sarifSchema is the official OASIS schema for SARIF 2.1.0; the tests
// validate output against a copy of it in testdata.
const sarifSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// srcRoot is the uriBaseId of every location: the checkout's root (see
// checkout), which the run's originalUriBaseIds give and which GitHub code
// scanning resolves relative paths against.
const srcRoot = "%SRCROOT%"

// The SARIF types cover only what skillpack writes. Field order is the
// output order and optional fields are omitempty, so output is byte-stable.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool                `json:"tool"`
		BaseIDs    map[string]sarifArtifact `json:"originalUriBaseIds,omitempty"` // srcRoot's absolute URI
		ColumnKind string                   `json:"columnKind"`                   // what a column counts: a Finding's, characters
		Results    []sarifResult            `json:"results"`                      // present even when empty: this was a scan
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri,omitempty"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string         `json:"id"`
		Name                 string         `json:"name"`
		ShortDescription     sarifText      `json:"shortDescription"`
		FullDescription      sarifText      `json:"fullDescription"`
		Help                 sarifText      `json:"help"`
		DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
		Properties           sarifRuleProps `json:"properties"`
	}
	sarifText struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifRuleProps struct {
		Tags []string `json:"tags"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex *int            `json:"ruleIndex,omitempty"` // 0 is an index; absent means no registered rule
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
)

// formatSARIF writes one SARIF 2.1.0 run for GitHub code scanning and
// other viewers. The driver lists every rule, not only those that fired, so
// a viewer can explain any rule and results can point into the list by index.
func formatSARIF(w io.Writer, res *Result, tool Tool) error {
	rules := Rules()
	index := make(map[string]int, len(rules))
	drv := sarifDriver{Name: tool.Name, Version: tool.Version, InformationURI: tool.URI, Rules: make([]sarifRule, len(rules))}
	for i, r := range rules {
		index[r.ID] = i
		drv.Rules[i] = sarifRule{
			ID:                   r.ID,
			Name:                 sarifName(r.ID),
			ShortDescription:     sarifText{Text: r.Title},
			FullDescription:      sarifText{Text: sentences(r.Explain, maxSARIFDescription)},
			Help:                 sarifText{Text: sarifHelp(r), Markdown: sarifHelpMarkdown(r)},
			DefaultConfiguration: sarifConfig{Level: sarifLevels[r.Severity]},
			Properties:           sarifRuleProps{Tags: []string{string(r.Category)}},
		}
	}

	root, rel := checkout(res.Base)
	findings := res.Findings
	if len(findings) > MaxSARIFResults {
		// The most severe, still in path order.
		findings = slices.Clone(findings)
		slices.SortStableFunc(findings, func(a, b Finding) int { return cmp.Compare(b.Severity, a.Severity) })
		findings = Sort(findings[:MaxSARIFResults])
	}
	results := make([]sarifResult, 0, len(findings))
	for _, f := range findings {
		// JSON escapes the C0 controls, but not DEL, the C1 controls or
		// the bidirectional ones, which a viewer would pass on.
		r := sarifResult{RuleID: f.Rule, Level: sarifLevels[f.Severity], Message: sarifText{Text: Printable(f.Message)}}
		if i, ok := index[f.Rule]; ok {
			r.RuleIndex = &i
		}
		if f.Fix != "" {
			// A message is one sentence without its full stop.
			r.Message.Text = strings.TrimSuffix(r.Message.Text, ".") + ". Fix: " + Printable(f.Fix)
		}
		if f.Path != "" {
			r.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: sarifURI(rel(f.Path)), URIBaseID: srcRoot},
				// SARIF lines and columns start at 1; a finding about a whole
				// file is put at its first line: GitHub code scanning places a
				// result by region.startLine (sarif-sdk's GH1003 requires one).
				Region: &sarifRegion{StartLine: max(f.Line, 1), StartColumn: max(f.Column, 0)},
			}}}
		}
		results = append(results, r)
	}

	var baseIDs map[string]sarifArtifact
	if root != "" {
		baseIDs = map[string]sarifArtifact{srcRoot: {URI: fileURI(root)}}
	}
	return jsonenc.Write(w, sarifLog{
		Schema:  sarifSchema,
		Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{Driver: drv}, ColumnKind: "unicodeCodePoints", Results: results,
			BaseIDs: baseIDs}},
	})
}

// MaxSARIFResults is the most results GitHub code scanning takes in a
// run: it refuses a file with more. A SARIF log keeps the most severe.
const MaxSARIFResults = 25000

// maxSARIFDescription is GitHub code scanning's limit on a rule's
// fullDescription, in characters; help, which has none, carries the rest.
const maxSARIFDescription = 1024

// sentences returns s, or as many of its first sentences as fit in max
// characters.
func sentences(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	cut, n := 0, 0
	for i, r := range s {
		if n++; n > max {
			break
		}
		if r == '.' && (i+1 == len(s) || s[i+1] == ' ') {
			cut = i + 1
		}
	}
	return s[:cut]
}

// sarifLevels are SARIF's levels of the severities: Info is its "note".
var sarifLevels = [...]string{Off: "none", Info: "note", Warning: "warning", Error: "error"}

// sarifURI turns a relative "/" path into a relative URI reference: spaces,
// "%", "?", "#", control characters and non-ASCII are percent-encoded, and
// a ":" in the first segment is guarded with "./" so the path cannot be
// read as a URI scheme. The URI names the file exactly, so it is not
// Printable: percent-encoding already leaves nothing to act on.
func sarifURI(p string) string {
	return (&url.URL{Path: p}).String()
}

// fileURI is the file: URI of an absolute folder, ending in "/" as
// SARIF wants of a base URI (C:\x is file:///C:/x/).
func fileURI(dir string) string {
	p := strings.TrimSuffix(filepath.ToSlash(dir), "/") + "/"
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// sarifName turns a kebab-case rule ID into SARIF's display name:
// "name-format" becomes "NameFormat".
func sarifName(id string) string {
	parts := strings.Split(id, "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}

// sarifHelp is a rule's documentation as plain text, the same parts
// --explain shows.
func sarifHelp(r *Rule) string {
	return r.Explain + "\n\nBad:\n" + strings.TrimRight(r.Bad, "\n") + "\n\nGood:\n" + strings.TrimRight(r.Good, "\n")
}

// sarifHelpMarkdown is sarifHelp for viewers that render Markdown, with the
// examples in code blocks.
func sarifHelpMarkdown(r *Rule) string {
	return r.Explain + "\n\nBad:\n\n" + sarifCodeBlock(r.Bad) + "\n\nGood:\n\n" + sarifCodeBlock(r.Good)
}

// sarifCodeBlock fences s with more backticks than any run inside it, so an
// example that itself holds a fence cannot end the block early.
func sarifCodeBlock(s string) string {
	s = strings.TrimRight(s, "\n")
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + "\n" + s + "\n" + fence
}
