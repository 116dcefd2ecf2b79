package skill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"

	"github.com/skillpack/skillpack/internal/jsonenc"
	"gopkg.in/yaml.v3"
)

// FrontmatterJSON returns the frontmatter as compact JSON with keys in
// source order. MCP hosts parse SKILL.md themselves and compare the result
// field by field with what a server sends, so the conversion refuses
// anything without one faithful JSON form (aliases, non-string keys,
// infinities, NaN) instead of guessing.
func (d *SkillMD) FrontmatterJSON() ([]byte, error) {
	if d.Front == nil {
		return nil, fmt.Errorf("SKILL.md has no frontmatter mapping")
	}
	var b bytes.Buffer
	if err := d.writeJSON(&b, &quoter{}, d.Front, 0, false); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// maxJSONDepth bounds recursion; YAML's own limit is far deeper than any
// frontmatter needs.
const maxJSONDepth = 100

// writeJSON writes n. With textValues, n is the metadata mapping, whose
// values the specification makes strings: a scalar is written as the text
// written (count: 28 as "28", an empty value as ""), and a nested value as
// its JSON text, so that no such value (a 20-digit number) stops the
// build; CheckMCP and lint's metadata rules say what hosts make of them.
func (d *SkillMD) writeJSON(b *bytes.Buffer, q *quoter, n *yaml.Node, depth int, textValues bool) error {
	fail := func(at *yaml.Node, format string, args ...any) error {
		line, col := d.FilePos(at)
		return fmt.Errorf("line %d, column %d: %s", line, col, fmt.Sprintf(format, args...))
	}
	if depth > maxJSONDepth {
		return fail(n, "frontmatter nested more than %d levels", maxJSONDepth)
	}
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteByte('{')
		seen := map[string]bool{}
		for k, v := range Pairs(n) {
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
				return fail(k, "key %q is not a string; quote it", k.Value)
			}
			if seen[k.Value] {
				return fail(k, "duplicate key %q", k.Value)
			}
			if len(seen) > 0 {
				b.WriteByte(',')
			}
			seen[k.Value] = true
			q.quote(b, k.Value)
			b.WriteByte(':')
			switch {
			case textValues && v.Kind == yaml.ScalarNode:
				q.quote(b, v.Value)
				continue
			case textValues && v.Kind != yaml.AliasNode:
				// A list or mapping (OpenClaw's metadata.openclaw) is its
				// JSON text.
				var nested bytes.Buffer
				if err := d.writeJSON(&nested, q, v, depth+1, false); err != nil {
					return err
				}
				q.quote(b, nested.String())
				continue
			}
			if err := d.writeJSON(b, q, v, depth+1, n == d.Front && k.Value == "metadata"); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := d.writeJSON(b, q, c, depth+1, false); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.AliasNode:
		return fail(n, "aliases (*%s) have no JSON form; write the value out", n.Value)
	case yaml.ScalarNode:
		if n.Style == 0 { // plain: its type is the YAML 1.2 core schema's
			num, ok := CoreNumber(n.Value)
			switch {
			case ok && num == "":
				return fail(n, "%s has no JSON form; quote it", n.Value)
			case ok:
				b.WriteString(num)
				return nil
			case Tag(n) == "!!str": // 0b1, 1_000, <<: YAML 1.1's numbers and merge key, 1.2's text
				q.quote(b, n.Value)
				return nil
			}
		}
		switch n.ShortTag() {
		case "!!str", "!!binary", "!!timestamp":
			// A timestamp stays the text the author wrote: JSON has no dates,
			// and a host that re-parses the YAML sees the same characters.
			q.quote(b, n.Value)
		case "!!null":
			b.WriteString("null")
		case "!!bool":
			var v bool
			if err := n.Decode(&v); err != nil {
				return fail(n, "%v", err)
			}
			b.WriteString(strconv.FormatBool(v))
		case "!!int":
			var v int64
			if err := n.Decode(&v); err != nil {
				return fail(n, "integer %s does not fit in 64 bits; quote it", n.Value)
			}
			b.WriteString(strconv.FormatInt(v, 10))
		case "!!float":
			var v float64
			if err := n.Decode(&v); err != nil {
				return fail(n, "%v", err)
			}
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return fail(n, "%s has no JSON form; quote it", n.Value)
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		default:
			return fail(n, "value with tag %s has no JSON form", n.ShortTag())
		}
	default:
		return fail(n, "unsupported YAML node")
	}
	return nil
}

// quoter quotes a frontmatter's strings through one encoder of the one
// JSON encoding (jsonenc): one made per string cost more than the string.
type quoter struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func (q *quoter) quote(b *bytes.Buffer, s string) {
	if q.enc == nil {
		q.enc = jsonenc.New(&q.buf, "")
	}
	q.buf.Reset()
	_ = q.enc.Encode(s)                    // strings always encode
	b.Write(q.buf.Bytes()[:q.buf.Len()-1]) // without Encode's newline
}

// The number forms of the YAML 1.2 core schema (10.3.2), by which MCP
// hosts' YAML readers type a plain value. yaml.v3 reads some as YAML 1.1
// does: 010 as octal 8, 0b1 and 1_000 as numbers.
var (
	coreInt     = regexp.MustCompile(`^[-+]?[0-9]+$`)
	coreOctal   = regexp.MustCompile(`^0o[0-7]+$`)
	coreHex     = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	coreFloat   = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	coreSpecial = regexp.MustCompile(`^([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`)
)

// CoreNumber reads a plain value as the YAML 1.2 core schema does: ok
// when it is a number, with its JSON text, which is "" for a number JSON
// cannot carry (.inf, .nan, 1e999).
func CoreNumber(s string) (json string, ok bool) {
	base := 0
	switch {
	case coreSpecial.MatchString(s):
		return "", true
	case coreOctal.MatchString(s):
		base = 8
	case coreHex.MatchString(s):
		base = 16
	case coreInt.MatchString(s) || coreFloat.MatchString(s):
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return strconv.FormatInt(v, 10), true
		}
		f, err := strconv.ParseFloat(s, 64)
		if math.IsInf(f, 0) || err != nil && !errors.Is(err, strconv.ErrRange) {
			return "", true
		}
		return strconv.FormatFloat(f, 'g', -1, 64), true
	default:
		return "", false
	}
	i, _ := new(big.Int).SetString(s[2:], base)
	if i.IsInt64() {
		return strconv.FormatInt(i.Int64(), 10), true
	}
	if f, _ := new(big.Float).SetInt(i).Float64(); !math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", true
}
