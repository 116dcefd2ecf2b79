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
// other, and sorted back from reverse order.
func TestCompareOrder(t *testing.T) {
	order := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
		"1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.9.0", "1.10.0", "1.11.0", "2.0.0", "10.0.0", "18446744073709551616.0.0"}
	for i, a := range order {
		for j, b := range order {
			if got, want := Compare(a, b), cmpInt(i, j); got != want {
				t.Errorf("Compare(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
	shuffled := slices.Clone(order)
	slices.Reverse(shuffled)
	slices.SortFunc(shuffled, Compare)
	if !slices.Equal(shuffled, order) {
		t.Errorf("sorted: %v", shuffled)
	}
}

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"1.0.0", "1.0.0", 0},
		{"1.0.1", "1.0.0", 1},
		{"1.1.0", "1.0.9", 1},
		{"2.0.0", "1.99.99", 1},
		{"1.10.0", "1.9.0", 1},                    // numbers, not strings
		{"1.0.0-rc.1", "1.0.0", -1},               // a pre-release comes before its release
		{"1.0.0-rc.1", "0.9.9", 1},                // and after the release before
		{"1.0.0-alpha", "1.0.0-alpha.1", -1},      // fewer identifiers first
		{"1.0.0-alpha.1", "1.0.0-alpha.beta", -1}, // numbers below words
		{"1.0.0-beta.11", "1.0.0-beta.2", 1},      // numeric identifiers as numbers
		{"1.0.0-Beta", "1.0.0-alpha", -1},         // words by ASCII: upper case first
		{"1.0.0-alpha-1", "1.0.0-alpha.1", 1},     // "alpha-1" is one word, after "alpha"
		{"1.0.0+build.1", "1.0.0+build.2", 0},     // build metadata does not count
		{"1.0.0-rc.1+a", "1.0.0-rc.1", 0},
		{"1.0.0+a", "1.0.0-rc.1", 1},
		{"99999999999999999999.0.0", "9999999999999999999.0.0", 1}, // past uint64
	} {
		if got := Compare(c.a, c.b); got != c.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Compare(c.b, c.a); got != -c.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
	// Not versions: ordered by their bytes, so that sorting never fails.
	if Compare("abc", "1.0.0") <= 0 || Compare("1.0", "1.0") != 0 {
		t.Error("invalid versions are not ordered by their bytes")
	}
}

func cmpInt(i, j int) int {
	switch {
	case i < j:
		return -1
	case i > j:
		return 1
	}
	return 0
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
