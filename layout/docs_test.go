package layout

import (
	"bytes"
	"io"
	"slices"
	"strings"
)

// The documents rendered whole from a list of skills, as Plan writes them
// (see the renderers for what each holds): what the tests compare.

func V2IndexDoc(skills []Skill, o Options) ([]byte, error) {
	s, err := newSet(List(skills), o)
	if err != nil {
		return nil, err
	}
	return collect(s.v2)
}

// V1IndexDoc returns the skills left out of the v0.1 index too.
func V1IndexDoc(skills []Skill, o Options) (doc []byte, left []Excluded, err error) {
	s, err := newSet(List(skills), o)
	if err != nil {
		return nil, nil, err
	}
	if doc, err = collect(s.v1); err != nil {
		return nil, nil, err
	}
	left, err = s.excluded()
	return doc, left, err
}

func MCPSkillsDoc(skills []Skill) ([]byte, error) {
	s, err := newSet(List(skills), Options{})
	if err != nil {
		return nil, err
	}
	return collect(s.mcpSkills)
}

func MCPIndexDoc(skills []Skill, o Options) ([]byte, error) {
	s, err := newSet(List(skills), o)
	if err != nil {
		return nil, err
	}
	return collect(s.mcpIndex)
}

func MCPResourcesDoc(skills []Skill, o Options) ([]byte, error) {
	s, err := newSet(List(skills), o)
	if err != nil {
		return nil, err
	}
	index, err := Render(io.Discard, s.mcpIndex)
	if err != nil {
		return nil, err
	}
	return collect(s.resources(index))
}

// LLMsTxtDoc is llms.txt with o.LLMsTxt (nil: the bundle's own).
func LLMsTxtDoc(skills []Skill, o Options) ([]byte, error) {
	if o.LLMsTxt == nil {
		o.LLMsTxt = &LLMsOptions{}
	}
	s, err := newSet(List(skills), o)
	if err != nil {
		return nil, err
	}
	return collect(s.llmsTxt)
}

func AICatalogDoc(skills []Skill, o Options) ([]byte, error) {
	o.AICatalog = true
	s, err := newSet(List(skills), o)
	if err != nil {
		return nil, err
	}
	return collect(s.aiCatalog)
}

// Lookup returns the entry at a dist path, reading through the entries.
func (b *Planned) Lookup(path string) (Entry, bool) {
	for e, err := range b.Entries() {
		if err != nil {
			return Entry{}, false
		}
		if e.Path == path {
			return e, true
		}
	}
	return Entry{}, false
}

// relToV2 is a dist path as a URL relative to the v0.2 index.
func relToV2(distPath string) string {
	return strings.TrimPrefix(distPath, SkillsDir+"/")
}

// ChecksumsDoc is checksums.txt in `sha256sum -c` format, "<hex>  <path>"
// per line, sorted by path, so that `cd dist && sha256sum -c checksums.txt`
// checks the listed files.
func ChecksumsDoc(sums []Sum) []byte {
	doc, _ := collect(checksumsWriter(sums)) // a bytes.Buffer takes every write
	return doc
}

// checksumsWriter renders ChecksumsDoc, sorting a copy of sums once.
func checksumsWriter(sums []Sum) func(io.Writer) error {
	sums = slices.Clone(sums)
	slices.SortFunc(sums, func(a, b Sum) int { return strings.Compare(a.Path, b.Path) })
	return func(w io.Writer) error {
		for _, s := range sums {
			if _, err := io.WriteString(w, checksumLine(s)); err != nil {
				return err
			}
		}
		return nil
	}
}

// collect renders a document into memory, for the tests.
func collect(write func(io.Writer) error) ([]byte, error) {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
