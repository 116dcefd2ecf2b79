package reuse

import "github.com/skillpack/skillpack/layout"

// For the tests in package reuse_test, which build a real bundle first.

func Listed(p *Last, path string, last **layout.RecordSkill) (layout.Artifact, bool, string, bool) {
	return p.listed(path, last)
}

func Names(p *Last) []string { return p.names }
