package publish

import "testing"

// A target holding others' objects at the bundle's paths names the first
// five and counts the rest, as human.Few says every such list.
func TestForeignErrorText(t *testing.T) {
	err := &ForeignError{Target: "s3://b/p", Paths: []string{"a", "b", "c", "d", "e", "f", "g"}}
	want := "s3://b/p holds what skillpack did not publish at 7 paths of the bundle (a, b, c, d, e, and 2 more); " +
		"move it away, or publish to a folder or prefix of its own; nothing was published"
	if got := err.Error(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
