package scratch

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestUnnamed checks that the scratch file never has a name on Linux: a
// name removed at once is still there for an instant, and a build killed
// in it left a skillpack-*.scratch in the temporary folder.
func TestUnnamed(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A file opened with a name and then unlinked shows that name here.
	link, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(s.f.Fd())))
	if err != nil {
		t.Skip("no /proc here:", err)
	}
	if strings.Contains(link, "skillpack-") || s.named {
		t.Errorf("the scratch file had a name: %s", link)
	}
	if entries, _ := os.ReadDir(os.Getenv("TMPDIR")); len(entries) != 0 {
		t.Errorf("the temporary folder holds %v", entries)
	}
}
