package layout

import "errors"

// Naming is the documents that name other files of the bundle, in the
// order Names is asked about them.
var Naming = []string{V2Index, V1Index, MCPSkills, MCPIndex, MCPResources, Checksums, PluginsIndex, VersionsIndex}

// Names is every dist path the document doc (one of Naming) names, maybe
// more than once: what publish --prune keeps while a kept release names it.
func Names(doc string, data []byte) ([]string, error) {
	uri := func(add func(string), u string) {
		if pp, ok := ParseURI(u); ok {
			add(pp.String())
		}
	}
	switch doc {
	case V2Index:
		return names(data, DecodeIndexV2, func(idx *IndexV2, add func(string)) {
			for _, e := range idx.Skills {
				if pp, ok := ParseIndexURL(e.URL); ok {
					add(pp.String())
				}
			}
		})
	case V1Index:
		return names(data, DecodeIndexV1, func(idx *IndexV1, add func(string)) {
			for _, e := range idx.Skills {
				for _, f := range e.Files {
					add(LegacyFile(e.Name, f))
				}
			}
		})
	case MCPSkills:
		return names(data, DecodeSkillsMCP, func(list []SkillMCP, add func(string)) {
			for _, s := range list {
				for _, r := range s.Resources {
					uri(add, r.URI)
				}
			}
		})
	case MCPIndex:
		return names(data, DecodeIndexMCP, func(idx *IndexMCP, add func(string)) {
			for _, e := range idx.Skills {
				uri(add, e.URL)
				for _, a := range e.Archives {
					uri(add, a.URL)
				}
			}
		})
	case MCPResources:
		return names(data, DecodeResources, func(list []Resource, add func(string)) {
			for _, r := range list {
				add(r.Path)
			}
		})
	case PluginsIndex:
		return names(data, DecodePlugins, func(idx *IndexPlugins, add func(string)) {
			for _, p := range idx.Plugins {
				for _, a := range p.Archives {
					if pp, ok := PluginPath(a.URL); ok {
						add(pp)
					}
				}
			}
		})
	case Checksums:
		return names(data, ParseChecksums, func(sums []Sum, add func(string)) {
			for _, s := range sums {
				add(s.Path)
			}
		})
	case VersionsIndex:
		// Every version's files and archives and each snapshot: what clients pin.
		v, err := DecodeVersions(data)
		if err == nil {
			err = errors.Join(v.Check()...)
		}
		if err != nil {
			return nil, err
		}
		var out []string
		for _, a := range v.Artifacts() {
			out = append(out, a.Path)
		}
		return out, nil
	}
	return nil, nil
}

// names is the paths each adds of what decode reads of data.
func names[T any](data []byte, decode func([]byte) (T, error), each func(v T, add func(string))) ([]string, error) {
	v, err := decode(data)
	if err != nil {
		return nil, err
	}
	var n []string
	each(v, func(p string) { n = append(n, p) })
	return n, nil
}
