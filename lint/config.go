package lint

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
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/skill"
)

// ConfigFile is the name of the project configuration, found by walking up
// from the working directory.
const ConfigFile = "skillpack.yaml"

// Config is a parsed skillpack.yaml.
type Config struct {
	Path     string              // where it was read from; "" for the defaults
	Profile  *Profile            // never nil after Load
	Severity map[string]Severity // rule ID → severity, over the profile's
	Ignore   *skill.Ignore       // paths relative to the config's folder
	Build    BuildConfig         // settings the build reads
	Allow    []*Allow            // suppressions by path and rule, each with its reason
	Baseline *Baseline           // known findings that do not fail a run; nil for none

	// BaselinePath is the baseline the config names, read by ReadBaseline.
	BaselinePath string
	baselineLine int

	sum [32]byte // of the file's bytes, for Key
}

// BuildConfig holds the `build:` section, read here so that one parser
// reports every unknown key of the file the same way.
type BuildConfig struct {
	NoLegacy    bool   // leave out the v0.1.0 tree
	BaseURL     string // absolute URL prefix for index entries
	SkipInvalid bool   // leave skills with error findings out instead of refusing the build

	// The discovery documents beyond the indexes.
	LLMsTxt      bool   // write llms.txt
	LLMsTxtMerge string // the site's llms.txt to merge the section into; absolute
	AICatalog    bool   // write the AI Catalog

	// The catalog's masthead (index.html): its title, who publishes the
	// skills, and the absolute http(s) URL of their source.
	CatalogTitle, CatalogPublisher, CatalogSource string

	// Versioned releases (skillpack build only).
	Versioned bool
	// Previous is the bundle published last: an http(s) URL, or a folder
	// made absolute.
	Previous string
}

// Dir is the folder the config's ignore globs are relative to.
func (c *Config) Dir() string {
	if c == nil || c.Path == "" {
		return "."
	}
	return filepath.Dir(c.Path)
}

// DefaultConfig is what applies when no skillpack.yaml is found.
func DefaultConfig() *Config {
	return &Config{Profile: profiles[0], Severity: map[string]Severity{}}
}

// FindConfig looks for skillpack.yaml in start and its parents and returns
// its path, or "" when there is none.
func FindConfig(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, ConfigFile)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", p, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// ConfigError is a problem in skillpack.yaml, with its position.
type ConfigError struct {
	Path string
	Line int
	Msg  string
}

func (e *ConfigError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

// ConfigErrors is every problem of one skillpack.yaml, in the order of
// its lines: a file with four typos is fixed in one run, not four. It
// prints one problem a line, as compilers do.
type ConfigErrors []*ConfigError

func (es ConfigErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find each *ConfigError.
func (es ConfigErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

var configKeys = []string{"allow", "baseline", "build", "ignore", "profile", "rules"}
var buildKeys = []string{"ai-catalog", "base-url", "catalog-publisher", "catalog-source", "catalog-title", "llms-txt", "llms-txt-merge", "no-legacy", "previous", "skip-invalid", "versioned"}

// LoadConfig reads and checks a skillpack.yaml. Every unknown key, rule ID,
// severity or profile is an error that names it: a config that silently
// does nothing is worse than none.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, data)
}

// ParseConfig checks the bytes of a skillpack.yaml; path is for messages.
// It reports every problem it finds, as ConfigErrors, unless the file is
// not YAML at all or not a mapping (a single *ConfigError).
func ParseConfig(path string, data []byte) (*Config, error) {
	c := DefaultConfig()
	c.Path = path
	c.sum = sha256.Sum256(data)
	var errs ConfigErrors
	fail := func(n *yaml.Node, format string, args ...any) {
		line := 0
		if n != nil {
			line = n.Line
		}
		errs = append(errs, &ConfigError{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) || len(bytes.TrimSpace(data)) == 0 {
			return c, nil // an empty file means the defaults
		}
		line, msg := skill.YAMLError(err)
		return nil, &ConfigError{Path: path, Line: line, Msg: "invalid YAML: " + msg}
	}
	if len(doc.Content) == 0 {
		return c, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &ConfigError{Path: path, Line: root.Line, Msg: fmt.Sprintf("the config must be a mapping of keys (%s)", strings.Join(configKeys, ", "))}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "profile":
			p, err := LookupProfile(v.Value)
			if err != nil || v.Kind != yaml.ScalarNode {
				fail(v, "%v", err)
				continue
			}
			c.Profile = p
		case "rules":
			if v.Kind != yaml.MappingNode {
				fail(v, "rules must map rule IDs to error, warning, info or off")
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				id, sev := v.Content[j], v.Content[j+1]
				if Lookup(id.Value) == nil {
					msg := fmt.Sprintf("unknown rule %q", id.Value)
					if s := Suggest(id.Value); s != "" {
						msg += fmt.Sprintf(" (did you mean %q?)", s)
					}
					fail(id, "%s; `skillpack lint --list-rules` lists them", msg)
					continue
				}
				s, err := ParseSeverity(sev.Value)
				if err != nil || sev.Kind != yaml.ScalarNode {
					fail(sev, "rule %s: unknown severity %q (want error, warning, info or off)", id.Value, sev.Value)
					continue
				}
				c.Severity[id.Value] = s
			}
		case "ignore":
			var globs []string
			if err := v.Decode(&globs); err != nil {
				fail(v, "ignore must be a list of gitignore-style globs")
				continue
			}
			c.Ignore = skill.NewIgnore(globs)
		case "allow":
			c.Allow = parseAllow(v, fail)
		case "baseline":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				fail(v, "baseline must be the path of a baseline file, relative to %s", ConfigFile)
				continue
			}
			// Read when a run uses it (ReadBaseline), not here: the run
			// that writes the file must not need it to exist.
			c.BaselinePath, c.baselineLine = fromConfig(path, v.Value), v.Line
		case "build":
			if v.Kind != yaml.MappingNode {
				fail(v, "build must be a mapping (%s)", strings.Join(buildKeys, ", "))
				continue
			}
			flags := map[string]*bool{
				"no-legacy": &c.Build.NoLegacy, "skip-invalid": &c.Build.SkipInvalid,
				"llms-txt": &c.Build.LLMsTxt, "ai-catalog": &c.Build.AICatalog, "versioned": &c.Build.Versioned,
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				bk, bv := v.Content[j], v.Content[j+1]
				if flag, ok := flags[bk.Value]; ok {
					if err := bv.Decode(flag); err != nil {
						fail(bv, "build.%s must be true or false", bk.Value)
					}
					continue
				}
				switch bk.Value {
				case "base-url":
					if err := bv.Decode(&c.Build.BaseURL); err != nil {
						fail(bv, "build.base-url must be a URL string")
					}
				case "catalog-title", "catalog-publisher":
					if bv.Kind != yaml.ScalarNode || bv.Tag != "!!str" || strings.TrimSpace(bv.Value) == "" {
						fail(bv, "build.%s must be a line of text, such as \"Acme skills\"", bk.Value)
						continue
					}
					if bk.Value == "catalog-title" {
						c.Build.CatalogTitle = bv.Value
					} else {
						c.Build.CatalogPublisher = bv.Value
					}
				case "catalog-source":
					if u, err := url.Parse(bv.Value); bv.Kind != yaml.ScalarNode || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
						fail(bv, "build.catalog-source must be the absolute http or https URL of the skills' source, such as https://github.com/OWNER/REPO")
						continue
					}
					c.Build.CatalogSource = bv.Value
				case "llms-txt-merge":
					if bv.Kind != yaml.ScalarNode || bv.Value == "" {
						fail(bv, "build.llms-txt-merge must be the path of the site's llms.txt, relative to %s", ConfigFile)
						continue
					}
					c.Build.LLMsTxtMerge = fromConfig(path, bv.Value)
				case "previous":
					if bv.Kind != yaml.ScalarNode || bv.Value == "" {
						fail(bv, "build.previous must be the http(s) URL or the folder (relative to %s) of the bundle published last", ConfigFile)
						continue
					}
					c.Build.Previous = bv.Value
					if !strings.Contains(bv.Value, "://") {
						c.Build.Previous = fromConfig(path, bv.Value)
					}
				default:
					fail(bk, "%s", unknownKey("build."+bk.Value, bk.Value, buildKeys))
				}
			}
		default:
			fail(k, "%s", unknownKey(k.Value, k.Value, configKeys))
		}
	}
	if len(errs) > 0 {
		// In the order of the lines, as an editor lists them; the parse
		// order differs where an entry's missing key is reported at the
		// entry's first line after its other keys' problems.
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
		return nil, errs
	}
	return c, nil
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
func parseAllow(v *yaml.Node, fail func(*yaml.Node, string, ...any)) []*Allow {
	if v.Kind != yaml.SequenceNode {
		fail(v, "allow must be a list of entries with rule, path and reason")
		return nil
	}
	var out []*Allow
	for _, e := range v.Content {
		if e.Kind != yaml.MappingNode {
			fail(e, "an allow entry is a mapping with rule, path and reason")
			continue
		}
		a := &Allow{Line: e.Line}
		bad := false
		// reported holds the keys whose problem is reported already: a
		// value of the wrong kind, or a misspelt key taken for them
		// ("reson: x" is one mistake, not also a missing reason).
		reported := map[string]bool{}
		for j := 0; j+1 < len(e.Content); j += 2 {
			k, ev := e.Content[j], e.Content[j+1]
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
					if Lookup(id) == nil {
						msg := fmt.Sprintf("allow: unknown rule %q", id)
						if s := Suggest(id); s != "" {
							msg += fmt.Sprintf(" (did you mean %q?)", s)
						}
						fail(ev, "%s; `skillpack lint --list-rules` lists them", msg)
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
		if bad {
			continue
		}
		a.match = skill.NewIgnore([]string{a.Path})
		out = append(out, a)
	}
	return out
}

func unknownKey(full, key string, known []string) string {
	msg := fmt.Sprintf("unknown key %q", full)
	if best := human.Closest(key, known); best != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", best)
	}
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	return msg + "; known keys: " + strings.Join(sorted, ", ")
}

// ReadBaseline reads the baseline the config names into Baseline; a
// config that names none is left as it is.
func (c *Config) ReadBaseline() error {
	if c.BaselinePath == "" {
		return nil
	}
	b, err := LoadBaseline(c.BaselinePath)
	if err != nil {
		return &ConfigError{Path: c.Path, Line: c.baselineLine, Msg: err.Error()}
	}
	c.Baseline = b
	return nil
}

// Key identifies everything in the config that can change what lint
// reports, with the strict flag: the build reuses a skill's clean verdict
// only while it is unchanged.
func (c *Config) Key(strict bool) string {
	var base [32]byte
	if c.Baseline != nil {
		base = c.Baseline.sum
	}
	return fmt.Sprintf("%x/%s/%t/%x", c.sum, c.Profile.Name, strict, base)
}

// Effective returns the severity of a rule under this config: the config's
// own setting, else the profile's, else the rule's default.
func (c *Config) Effective(r *Rule) Severity {
	if s, ok := c.Severity[r.ID]; ok {
		return s
	}
	return c.Profile.level(r)
}
