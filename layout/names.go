package layout

// Naming is the documents that name other files of the bundle, in the
// order Names is asked about them.
var Naming = []string{V2Index, V1Index, MCPSkills, MCPIndex, MCPResources, Checksums, PluginsIndex}

// Names is every dist path the document doc (one of Naming) names, read
// from its bytes with its decoder: what a reader holding the document
// may fetch, which publish --prune keeps while a kept release names it.
// A path may come more than once.
func Names(doc string, data []byte) ([]string, error) {
	var n []string
	add := func(p string) { n = append(n, p) }
	uri := func(u string) {
		if pp, ok := ParseURI(u); ok {
			add(pp.String())
		}
	}
	switch doc {
	case V2Index:
		idx, err := DecodeIndexV2(data)
		if err != nil {
			return nil, err
		}
		for _, e := range idx.Skills {
			if pp, ok := ParseIndexURL(e.URL); ok {
				add(pp.String())
			}
		}
	case V1Index:
		idx, err := DecodeIndexV1(data)
		if err != nil {
			return nil, err
		}
		for _, e := range idx.Skills {
			for _, f := range e.Files {
				add(LegacyFile(e.Name, f))
			}
		}
	case MCPSkills:
		list, err := DecodeSkillsMCP(data)
		if err != nil {
			return nil, err
		}
		for _, s := range list {
			for _, r := range s.Resources {
				uri(r.URI)
			}
		}
	case MCPIndex:
		idx, err := DecodeIndexMCP(data)
		if err != nil {
			return nil, err
		}
		for _, e := range idx.Skills {
			uri(e.URL)
			for _, a := range e.Archives {
				uri(a.URL)
			}
		}
	case MCPResources:
		list, err := DecodeResources(data)
		if err != nil {
			return nil, err
		}
		for _, r := range list {
			add(r.Path)
		}
	case PluginsIndex:
		idx, err := DecodePlugins(data)
		if err != nil {
			return nil, err
		}
		for _, p := range idx.Plugins {
			for _, a := range p.Archives {
				if pp, ok := PluginPath(a.URL); ok {
					add(pp)
				}
			}
		}
	case Checksums:
		sums, err := ParseChecksums(data)
		if err != nil {
			return nil, err
		}
		for _, s := range sums {
			add(s.Path)
		}
	}
	return n, nil
}
