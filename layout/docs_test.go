package layout

import (
	"bytes"
	"io"
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
	return doc, s.excluded(), nil
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

// collect renders a document into memory, for the tests.
func collect(write func(io.Writer) error) ([]byte, error) {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
