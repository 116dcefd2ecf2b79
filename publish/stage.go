package publish

import (
	"fmt"
	"strings"

	"github.com/skillpack/skillpack/layout"
)

// Stage is a step of the safe order: every object of a stage is in place
// before any object of the next one is sent (see the package comment).
type Stage int

// The stages, in the order they are published.
const (
	// Archives are content-addressed: a new archive has a new name, so it
	// can go out first without changing anything a reader sees.
	Archives Stage = iota
	// Files are each skill's own files, in the v0.2 and v0.1 trees,
	// those of the plugins served as folders, and each skill's catalog
	// page (checksums.txt and the catalog name them).
	Files
	// MCP is the mcp/ documents, which name skill files and archives.
	MCP
	// Indexes is the discovery indexes and the other documents: the
	// catalog, checksums.txt, _headers, .nojekyll.
	Indexes
	// Record is the build record, last: present, it says that the
	// release is complete.
	Record
)

var stageNames = [...]string{"archives", "files", "mcp", "indexes", "record"}

// String is the stage's name as progress lines and --json spell it.
func (s Stage) String() string {
	if s >= 0 && int(s) < len(stageNames) {
		return stageNames[s]
	}
	return fmt.Sprintf("Stage(%d)", int(s))
}

// MarshalText spells the stage by name in JSON.
func (s Stage) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// StageOf is the stage of a dist path. A signature goes in the stage of
// what it signs, so that it is in place when its artifact is. A path
// layout does not know (a newer skillpack's document) goes with the
// indexes, after everything a document can name.
func StageOf(path string) Stage {
	if a, ok := layout.SignedArtifact(path); ok {
		path = a
	}
	p, ok := layout.ParsePath(path)
	switch {
	case !ok:
		return Indexes
	case layout.Addressed(path):
		return Archives
	case p.Kind == layout.KindFile, p.Kind == layout.KindVersion, p.Kind == layout.KindPage,
		strings.HasPrefix(path, layout.PluginsDir+"/") && path != layout.PluginsIndex: // a plugin's folder
		return Files
	}
	switch p.Doc {
	case layout.MCPSkills, layout.MCPIndex, layout.MCPResources:
		return MCP
	case layout.BuildRecord:
		return Record
	}
	return Indexes
}
