package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorNoHelper: with skillpack-sign neither beside skillpack nor on
// PATH, doctor exits 1 and says how to install it, in text and in JSON.
func TestDoctorNoHelper(t *testing.T) {
	schemas, _ := filepath.Abs(schemaDir)
	writeSkills(t, map[string]string{"skills/good/SKILL.md": cleanSkill})
	t.Setenv("PATH", t.TempDir())
	ios, out, errb := fakeIO(nil)
	if code := run(ios, []string{"doctor"}); code != ExitFindings {
		t.Fatalf("exit %d, want 1: %s", code, errb)
	}
	if want := "skillpack-sign: skillpack-sign is neither beside skillpack nor on PATH; signing needs it: install it with `go install "; !strings.Contains(out.String(), want) {
		t.Errorf("stdout:\n%s\nwant a line starting %q", out, want)
	}
	if want := "skillpack: signing is not ready: skillpack-sign is missing\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb, want)
	}
	ios, out, _ = fakeIO(nil)
	code := run(ios, []string{"doctor", "--json"})
	if err := validateDoc(schemas, "doctor.schema.json", out.Bytes(), code); err != nil {
		t.Fatal(err)
	}
	var doc doctorJSON
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Sign.OK || doc.Sign.Path != "" || doc.Skills.Count != 1 || doc.Dist.State != "absent" {
		t.Errorf("doc %+v, %v", doc, err)
	}
}
