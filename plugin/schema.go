package plugin

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/skillpack/skillpack/internal/jsonenc"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The Agent Plugins 1.0.0 schemas' canonical identifiers: the $schema
// value each document must carry. SchemaBase begins every version's.
const (
	SchemaBase     = "https://agent-plugins.org/schemas/"
	ManifestSchema = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"
	MCPSchema      = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"
)

//go:embed schemas/1.0.0/*.json
var schemaFiles embed.FS

// schemas compiles both embedded schemas once, under their own $id, so
// nothing is ever fetched (the specification forbids a client to).
var schemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.UseRegexpEngine(compileRegexp)
	out := map[string]*jsonschema.Schema{}
	// Neither refers to the other: each compiles once it is added.
	for id, name := range map[string]string{ManifestSchema: "plugin.schema.json", MCPSchema: "mcp.schema.json"} {
		data, err := schemaFiles.ReadFile("schemas/1.0.0/" + name)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(id, doc); err != nil {
			return nil, err
		}
		if out[id], err = c.Compile(id); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// compileRegexp is Go's regexp, which has no lookaround, taught the one
// form the schemas use: a leading negative lookahead, ^(?!X)Y, which
// matches what ^Y matches unless ^X matches too. Anything else with
// lookaround fails to compile, so a new schema cannot be read wrongly.
func compileRegexp(s string) (jsonschema.Regexp, error) {
	rest, ok := strings.CutPrefix(s, "^(?!")
	if !ok {
		return regexp.Compile(s)
	}
	depth, class := 1, false
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				not, err := regexp.Compile("^(?:" + rest[:i] + ")")
				if err != nil {
					return nil, err
				}
				re, err := regexp.Compile("^(?:" + rest[i+1:] + ")")
				if err != nil {
					return nil, err
				}
				return lookahead{s, not, re}, nil
			}
		}
	}
	return nil, fmt.Errorf("unbalanced lookahead in %q", s)
}

type lookahead struct {
	src     string
	not, re *regexp.Regexp
}

func (l lookahead) MatchString(s string) bool { return !l.not.MatchString(s) && l.re.MatchString(s) }
func (l lookahead) String() string            { return l.src }

// Problem is one way a document breaks its schema, or is no JSON at all.
// Line and Column are 1-based, 0 when unknown.
type Problem struct {
	Line, Column int
	Pointer      string // the JSON pointer of the value concerned, "" for the document
	Message      string
	Fix          string // how to fix it, when the schema says
}

// Validate checks a plugin.json (schema ManifestSchema) or an mcp.json
// (MCPSchema) against the embedded schema, and returns its problems in
// document order.
func Validate(schema string, data []byte) []Problem {
	all, err := schemas()
	if err != nil {
		panic("plugin: embedded schemas: " + err.Error()) // the tests compile them
	}
	pos, err := positions(data)
	if err != nil {
		return []Problem{syntaxProblem(data, err)}
	}
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(data)) // parsed above
	verr, _ := all[schema].Validate(inst).(*jsonschema.ValidationError)
	if verr == nil {
		return nil
	}
	var out []Problem
	p := message.NewPrinter(language.English)
	for _, e := range leaves(verr) {
		at := pointer(e.InstanceLocation)
		pr := Problem{Pointer: at, Message: e.ErrorKind.LocalizedString(p)}
		off := pos.at(at)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			if slices.Contains(k.Missing, "$schema") && at == "" {
				pr.Fix = fmt.Sprintf("add \"$schema\": %q as its first field", schema)
			}
		case *kind.AdditionalProperties:
			off = pos.at(at + "/" + k.Properties[0])
			pr.Fix = "remove " + strings.Join(k.Properties, ", ")
			if at == "" && schema == ManifestSchema {
				pr.Fix += ", or move client-specific data under \"extensions\" keyed by a reverse-domain namespace (\"com.example.client\")"
			}
		case *kind.Const:
			pr.Fix = fmt.Sprintf("make it %q", k.Want)
		case *kind.Pattern:
			if at == "/name" {
				pr.Fix = "use 1-64 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, without '--' or '..'"
			}
		}
		pr.Line, pr.Column = jsonenc.LineCol(data, off)
		out = append(out, pr)
	}
	slices.SortStableFunc(out, func(a, b Problem) int { return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column)) })
	return out
}

// leaves flattens an error tree into the errors that say what is wrong.
// Where none of a oneOf's variants matched and they are told apart by the
// constant of a member (mcp.json's server "type"), only the variant the
// value names is reported, or, when it names none, that member: the errors
// of the variants it did not choose say nothing useful.
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if o, ok := e.ErrorKind.(*kind.OneOf); ok && o.Subschemas == nil {
		var chosen []*jsonschema.ValidationError
		var wants []string
		member := "type"
		for _, c := range e.Causes {
			if k, at, ok := constAt(c, len(e.InstanceLocation)); ok {
				wants = append(wants, fmt.Sprintf("%q", k.Want))
				member = at
				continue
			}
			chosen = append(chosen, c)
		}
		if len(chosen) == 1 {
			return leaves(chosen[0])
		}
		if len(wants) == 0 {
			wants = serverTypes()
		}
		return []*jsonschema.ValidationError{{InstanceLocation: append(slices.Clone(e.InstanceLocation), member),
			ErrorKind: &said{fmt.Sprintf("%q must be one of %s", member, strings.Join(wants, ", "))}}}
	}
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// constAt finds, among an error's leaves, a failed constant on a member of
// the object at depth: the variant's discriminator.
func constAt(e *jsonschema.ValidationError, depth int) (*kind.Const, string, bool) {
	if k, ok := e.ErrorKind.(*kind.Const); ok && len(e.InstanceLocation) == depth+1 {
		return k, e.InstanceLocation[depth], true
	}
	for _, c := range e.Causes {
		if k, at, ok := constAt(c, depth); ok {
			return k, at, true
		}
	}
	return nil, "", false
}

// serverTypes are the values of a server's "type" in the embedded
// mcp.json schema, for a server that has none.
var serverTypes = sync.OnceValue(func() []string {
	data, _ := schemaFiles.ReadFile("schemas/1.0.0/mcp.schema.json")
	var s struct {
		Defs map[string]struct {
			Properties struct {
				Type struct {
					Const *string `json:"const"`
				} `json:"type"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	json.Unmarshal(data, &s) // the tests compile it
	var out []string
	for _, d := range s.Defs {
		if c := d.Properties.Type.Const; c != nil {
			out = append(out, fmt.Sprintf("%q", *c))
		}
	}
	slices.Sort(out)
	return out
})

// said is an ErrorKind in words of our own.
type said struct{ text string }

func (m *said) KeywordPath() []string                   { return nil }
func (m *said) LocalizedString(*message.Printer) string { return m.text }

func pointer(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	return "/" + strings.Join(loc, "/")
}
