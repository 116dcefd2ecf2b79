package semver

import (
	"slices"
	"testing"
)

func TestValid(t *testing.T) {
	for _, v := range []string{"0.0.0", "1.0.0", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7",
		"1.0.0-x.7.z.92", "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85", "1.0.0-x-y-z.--"} {
		if !Valid(v) {
			t.Errorf("Valid(%q) = false", v)
		}
	}
	for _, v := range []string{"", "1", "1.0", "v1.0.0", "01.0.0", "1.01.0", "1.0.0-", "1.0.0-01", "1.0.0+",
		"1.0.0.0", " 1.0.0", "1.0.0 ", "1.0.0-alpha..1", "1.0.0-alpha_beta"} {
		if Valid(v) {
			t.Errorf("Valid(%q) = true", v)
		}
	}
}

// The precedence example of semver.org §11, in order, each against every
// other; build metadata does not count.
func TestCompare(t *testing.T) {
	order := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
		"1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.9.0", "1.10.0", "1.11.0", "2.0.0", "10.0.0", "18446744073709551616.0.0"}
	for i, a := range order {
		for j, b := range order {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := Compare(a, b); got != want {
				t.Errorf("Compare(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
	if got := Compare("1.0.0+build.1", "1.0.0+build.2"); got != 0 {
		t.Errorf("build metadata counted: %d", got)
	}
	shuffled := slices.Clone(order)
	slices.Reverse(shuffled)
	slices.SortFunc(shuffled, Compare)
	if !slices.Equal(shuffled, order) {
		t.Errorf("sorted: %v", shuffled)
	}
}

func TestSuggest(t *testing.T) {
	for v, want := range map[string]string{
		"1.0": "1.0.0", "v1.2.3": "1.2.3", "1": "1.0.0", "01.02.03": "1.2.3", "v2.0-beta.1": "2.0.0-beta.1",
		"1.0.0": "", "latest": "", "1.2.3.4": "", "": "",
	} {
		if got := Suggest(v); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", v, got, want)
		}
	}
}
