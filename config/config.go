// Package config reads skillpack.yaml: it finds the file, checks every key
// of it (reporting every problem at once, each with its line) and hands
// each reader its part: lint its Settings (profile, rules, ignore, allow,
// baseline), the command layer the build section. A new setting is a key
// here and a field of the part that reads it.
//
// It must not decide what a setting does: lint weighs the rules, the
// command layer picks between a flag and the file.
package config

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/smallfile"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/skill"
)

// File is the name of the project configuration, found by walking up from
// the working directory.
const File = "skillpack.yaml"

// Config is a parsed skillpack.yaml.
type Config struct {
	Path  string        // where it was read from; "" for the defaults
	Lint  lint.Settings // what lint reads; its Baseline is read by ReadBaseline
	Build Build         // what the build reads

	// BaselinePath is the baseline the config names, read by ReadBaseline.
	BaselinePath string
	baselineLine int
}

// Build holds the `build:` section.
type Build struct {
	NoLegacy    bool   // leave out the v0.1.0 tree
	BaseURL     string // absolute URL prefix for index entries
	SkipInvalid bool   // leave skills with error findings out instead of refusing the build

	// The discovery documents beyond the indexes.
	LLMsTxt      bool   // write llms.txt
	LLMsTxtMerge string // the site's llms.txt to merge the section into; absolute
	AICatalog    bool   // write the AI Catalog
	// Marketplaces are the marketplace files to write, by client
	// (layout.Marketplaces).
	Marketplaces []string

	// The catalog's masthead (index.html): its title, who publishes the
	// skills, and the absolute http(s) URL of their source.
	CatalogTitle, CatalogPublisher, CatalogSource string

	// Versioned releases (skillpack build only).
	Versioned bool
	// Previous is the bundle published last: an http(s) URL, or a folder
	// made absolute.
	Previous string
}

// Default is what applies when no skillpack.yaml is found.
func Default() *Config {
	return &Config{Lint: lint.Settings{Profile: lint.Profiles()[0], Severity: map[string]lint.Severity{}}}
}

// Find looks for skillpack.yaml in start and its parents and returns its
// path, or "" when there is none.
func Find(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, File)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", p, err)
		}
		// Read silently past, a skillpack.yml would leave its settings
		// unapplied with no word said.
		yml := strings.TrimSuffix(p, ".yaml") + ".yml"
		if info, err := os.Stat(yml); err == nil && !info.IsDir() {
			return "", fmt.Errorf("%s: skillpack reads %s, not .yml; rename it (git mv %s %s)", yml, File, yml, p)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// Error is a problem in skillpack.yaml, with its position.
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

// Errors is every problem of one skillpack.yaml, in the order of its
// lines: a file with four typos is fixed in one run, not four. It prints
// one problem a line, as compilers do.
type Errors []*Error

func (es Errors) Error() string { return errors.Join(es.Unwrap()...).Error() }

// Unwrap lets errors.As find each *Error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

var configKeys = []string{"allow", "baseline", "build", "ignore", "profile", "rules"}
var buildKeys = []string{"ai-catalog", "base-url", "catalog-publisher", "catalog-source", "catalog-title", "llms-txt", "llms-txt-merge", "marketplaces", "no-legacy", "previous", "skip-invalid", "versioned"}

// ForeignError is a skillpack.yaml none of whose keys is skillpack's:
// another tool's manifest of that name (aios-kit's, skillpack-forge's).
type ForeignError struct {
	Path string
	Keys []string // its top-level keys
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s holds none of skillpack's keys (%s) but %s: it is another tool's file", e.Path,
		strings.Join(configKeys, ", "), strings.Join(e.Keys, ", "))
}

// notOurs is a ForeignError when root, a mapping, has keys and none is
// skillpack's or a misspelling of one (profil); a file with some of them
// is checked key by key.
func notOurs(path string, root *yaml.Node) error {
	var keys []string
	for kn := range skill.Pairs(root) {
		if k := kn.Value; slices.Contains(configKeys, k) || human.Closest(k, configKeys) != "" {
			return nil
		} else if len(keys) < 8 {
			keys = append(keys, strconv.Quote(k))
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return &ForeignError{Path: path, Keys: keys}
}

// Load reads and checks a skillpack.yaml. Every unknown key, rule ID,
// severity or profile is an error that names it: a config that silently
// does nothing is worse than none.
func Load(path string) (*Config, error) {
	data, err := smallfile.Read(path)
	if info, serr := os.Stat(path); serr == nil && info.IsDir() {
		return nil, fmt.Errorf("%s is a folder; give the path of its %s (--config %s)", path, File, filepath.Join(path, File))
	} else if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such file; give the path of a %s (--config)", path, File)
	} else if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse checks the bytes of a skillpack.yaml; path is for messages. It
// reports every problem it finds, as Errors, unless the file is not YAML
// at all or not a mapping (a single *Error).
func Parse(path string, data []byte) (*Config, error) {
	c := Default()
	c.Path, c.Lint.File, c.Lint.Digest = path, path, sha256.Sum256(data)
	var errs Errors
	fail := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, &Error{Path: path, Line: n.Line, Msg: fmt.Sprintf(format, args...)})
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) || len(bytes.TrimSpace(data)) == 0 {
			return c, nil // an empty file means the defaults
		}
		line, msg := skill.YAMLError(err)
		return nil, &Error{Path: path, Line: line, Msg: "invalid YAML: " + msg}
	}
	if len(doc.Content) == 0 {
		return c, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Path: path, Line: root.Line, Msg: fmt.Sprintf("the config must be a mapping of keys (%s)", strings.Join(configKeys, ", "))}
	}
	if err := notOurs(path, root); err != nil {
		return nil, err
	}
	for k, v := range skill.Pairs(root) {
		switch k.Value {
		case "profile":
			switch p, err := lint.LookupProfile(v.Value); {
			case v.Kind != yaml.ScalarNode: // a list reads as "", which lint takes for the default
				fail(v, "profile is one name: %s", strings.Join(lint.ProfileNames(), ", "))
			case err != nil:
				fail(v, "%v", err)
			default:
				c.Lint.Profile = p
			}
		case "rules":
			if v.Kind != yaml.MappingNode {
				fail(v, "rules must map rule IDs to error, warning, info or off")
				continue
			}
			for id, sev := range skill.Pairs(v) {
				if !knownRule(id, "", fail) {
					continue
				}
				s, err := lint.ParseSeverity(sev.Value)
				if err != nil || sev.Kind != yaml.ScalarNode {
					fail(sev, "rule %s: unknown severity %q (want error, warning, info or off)", id.Value, sev.Value)
					continue
				}
				c.Lint.Severity[id.Value] = s
			}
		case "ignore":
			var globs []string
			if err := v.Decode(&globs); err != nil {
				fail(v, "ignore must be a list of gitignore-style globs")
				continue
			}
			// A pattern that can name nothing would leave in the skills
			// it was meant to leave out, without a word.
			for _, g := range v.Content {
				if why, instead := skill.Outside(g.Value, filepath.Dir(path)); why != "" {
					fix := "drop it: only folders below this file's are linted"
					if instead != "" {
						fix = fmt.Sprintf("write %q", instead)
					}
					fail(g, "ignore: %q: a pattern is relative to this file's folder and matches only below it; this one %s: %s", g.Value, why, fix)
				}
			}
			c.Lint.Ignore = skill.NewIgnore(globs)
		case "allow":
			c.Lint.Allow = parseAllow(v, fail)
		case "baseline":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				fail(v, "baseline must be the path of a baseline file, relative to %s", File)
				continue
			}
			// Read when a run uses it (ReadBaseline), not here: the run
			// that writes the file must not need it to exist.
			c.BaselinePath, c.baselineLine = fromConfig(path, v.Value), v.Line
		case "build":
			parseBuild(&c.Build, path, v, fail)
		default:
			fail(k, "%s", unknownKey(k.Value, k.Value, configKeys))
		}
	}
	if len(errs) > 0 {
		// In the order of the lines, as an editor lists them; the parse
		// order differs where an entry's missing key is reported at the
		// entry's first line after its other keys' problems.
		slices.SortStableFunc(errs, func(a, b *Error) int { return a.Line - b.Line })
		return nil, errs
	}
	return c, nil
}

// knownRule reports whether the node names a rule, and passes fail the
// problem when it does not; what prefixes the message ("allow: ").
func knownRule(id *yaml.Node, what string, fail func(*yaml.Node, string, ...any)) bool {
	if lint.Lookup(id.Value) != nil {
		return true
	}
	fail(id, "%sunknown rule %q%s; `skillpack lint --list-rules` lists them",
		what, id.Value, lint.DidYouMean(id.Value))
	return false
}

// parseBuild reads the build section into b.
func parseBuild(b *Build, path string, v *yaml.Node, fail func(*yaml.Node, string, ...any)) {
	if v.Kind != yaml.MappingNode {
		fail(v, "build must be a mapping (%s)", strings.Join(buildKeys, ", "))
		return
	}
	flags := map[string]*bool{
		"no-legacy": &b.NoLegacy, "skip-invalid": &b.SkipInvalid,
		"llms-txt": &b.LLMsTxt, "ai-catalog": &b.AICatalog, "versioned": &b.Versioned,
	}
	texts := map[string]*string{"catalog-title": &b.CatalogTitle, "catalog-publisher": &b.CatalogPublisher}
	for bk, bv := range skill.Pairs(v) {
		if flag, ok := flags[bk.Value]; ok {
			if err := bv.Decode(flag); err != nil {
				fail(bv, "build.%s must be true or false", bk.Value)
			}
			continue
		}
		switch bk.Value {
		case "base-url":
			if err := bv.Decode(&b.BaseURL); err != nil {
				fail(bv, "build.base-url must be a URL string")
			} else if err := layout.CheckBaseURL(b.BaseURL); err != nil {
				fail(bv, "build.base-url %s", strings.TrimPrefix(err.Error(), "base URL "))
			}
		case "catalog-title", "catalog-publisher":
			if bv.Kind != yaml.ScalarNode || bv.Tag != "!!str" || strings.TrimSpace(bv.Value) == "" {
				fail(bv, "build.%s must be a line of text, such as \"Acme skills\"", bk.Value)
				continue
			}
			*texts[bk.Value] = bv.Value
		case "catalog-source":
			if u, err := url.Parse(bv.Value); bv.Kind != yaml.ScalarNode || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
				fail(bv, "build.catalog-source must be the absolute http or https URL of the skills' source, such as https://github.com/OWNER/REPO")
				continue
			}
			b.CatalogSource = bv.Value
		case "marketplaces":
			if bv.Kind != yaml.SequenceNode {
				fail(bv, "build.marketplaces must be a list of clients, such as [claude]")
				continue
			}
			for _, m := range bv.Content {
				if m.Kind != yaml.ScalarNode || m.Value == "" {
					fail(m, "build.marketplaces: a client is a name, such as claude")
					continue
				}
				if err := layout.CheckMarketplace(m.Value); err != nil {
					fail(m, "build.marketplaces: %v", err)
					continue
				}
				b.Marketplaces = append(b.Marketplaces, m.Value)
			}
		case "llms-txt-merge":
			if bv.Kind != yaml.ScalarNode || bv.Value == "" {
				fail(bv, "build.llms-txt-merge must be the path of the site's llms.txt, relative to %s", File)
				continue
			}
			b.LLMsTxtMerge = fromConfig(path, bv.Value)
		case "previous":
			if bv.Kind != yaml.ScalarNode || bv.Value == "" {
				fail(bv, "build.previous must be the http(s) URL or the folder (relative to %s) of the bundle published last", File)
				continue
			}
			b.Previous = bv.Value
			if !strings.Contains(bv.Value, "://") {
				b.Previous = fromConfig(path, bv.Value)
			}
		default:
			fail(bk, "%s", unknownKey("build."+bk.Value, bk.Value, buildKeys))
		}
	}
}

// fromConfig is a path the config at path gives, made relative to the
// config's folder rather than the working directory.
func fromConfig(path, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(path), p)
}

var allowKeys = []string{"path", "reason", "rule", "rules"}

// parseAllow reads the allow list:
//
//	allow:
//	  - rule: file-unreferenced       # or rules: [a, b]
//	    path: skills/pdf/scripts/**   # gitignore-style, from this file's folder
//	    reason: loaded by name at run time
//
// The reason is required: a suppression nobody can explain is one nobody
// can remove. Every problem is passed to fail; an entry with one is left
// out of the list returned.
func parseAllow(v *yaml.Node, fail func(*yaml.Node, string, ...any)) []*lint.Allow {
	if v.Kind != yaml.SequenceNode {
		fail(v, "allow must be a list of entries with rule, path and reason")
		return nil
	}
	var out []*lint.Allow
	for _, e := range v.Content {
		if e.Kind != yaml.MappingNode {
			fail(e, "an allow entry is a mapping with rule, path and reason")
			continue
		}
		a := &lint.Allow{Line: e.Line}
		bad := false
		// reported holds the keys whose problem is reported already: a
		// value of the wrong kind, or a misspelt key taken for them
		// ("reson: x" is one mistake, not also a missing reason).
		reported := map[string]bool{}
		for k, ev := range skill.Pairs(e) {
			switch k.Value {
			case "rule", "rules":
				var ids []string
				if ev.Kind == yaml.ScalarNode {
					ids = []string{ev.Value}
				} else if err := ev.Decode(&ids); err != nil {
					fail(ev, "allow: %s must be a rule ID or a list of them", k.Value)
					bad, reported["rule"] = true, true
					continue
				}
				for _, id := range ids {
					if !knownRule(&yaml.Node{Value: id, Line: ev.Line}, "allow: ", fail) {
						bad = true
					}
				}
				a.Rules = append(a.Rules, ids...)
			case "path":
				if ev.Kind != yaml.ScalarNode || ev.Value == "" {
					fail(ev, "allow: path must be a gitignore-style glob such as skills/pdf/**")
					bad, reported["path"] = true, true
					continue
				}
				a.Path = ev.Value
			case "reason":
				if ev.Kind != yaml.ScalarNode {
					fail(ev, "allow: reason must be text")
					bad, reported["reason"] = true, true
					continue
				}
				a.Reason = strings.TrimSpace(ev.Value)
			default:
				fail(k, "allow: %s", unknownKey(k.Value, k.Value, allowKeys))
				bad = true
				if s := human.Closest(k.Value, allowKeys); s == "rules" {
					reported["rule"] = true
				} else if s != "" {
					reported[s] = true
				}
			}
		}
		if len(a.Rules) == 0 && !reported["rule"] {
			fail(e, "allow entry without a rule: add `rule: ID`")
			bad = true
		}
		if a.Path == "" && !reported["path"] {
			fail(e, "allow entry without a path: add `path: GLOB` (use rules: {ID: off} to turn a rule off everywhere)")
			bad = true
		}
		if a.Reason == "" && !reported["reason"] {
			what := "allow entry"
			if len(a.Rules) > 0 {
				what += " for " + strings.Join(a.Rules, ", ")
			}
			if a.Path != "" {
				what += fmt.Sprintf(" on %q", a.Path)
			}
			fail(e, "%s has no reason: add `reason: ...` saying why the finding is not a defect", what)
			bad = true
		}
		if !bad {
			out = append(out, a)
		}
	}
	return out
}

func unknownKey(full, key string, known []string) string {
	return fmt.Sprintf("unknown key %q%s; known keys: %s",
		full, human.DidYouMean(key, known), strings.Join(slices.Sorted(slices.Values(known)), ", "))
}

// ReadBaseline reads the baseline the config names into Lint.Baseline; a
// config that names none is left as it is.
func (c *Config) ReadBaseline() error {
	if c.BaselinePath == "" {
		return nil
	}
	b, err := lint.LoadBaseline(c.BaselinePath)
	if err != nil {
		return &Error{Path: c.Path, Line: c.baselineLine, Msg: err.Error()}
	}
	c.Lint.Baseline = b
	return nil
}
