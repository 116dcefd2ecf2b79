package layout

import (
	"testing"

	"github.com/skillpack/skillpack/skill"
)

// Discovery skips folders holding a built bundle by looking for this file;
// the two spellings must agree or lint would check a bundle's copies.
func TestBundleMarker(t *testing.T) {
	if skill.BundleMarker != V2Index {
		t.Fatalf("skill.BundleMarker = %q, layout.V2Index = %q", skill.BundleMarker, V2Index)
	}
}
