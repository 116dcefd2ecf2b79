package semver

import (
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
