package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/sign"
)

// TestDoctorNoHelper: with skillpack-sign neither beside skillpack nor on
// PATH, doctor says how to install it, in text and in JSON, and exits 0:
// only --sign needs it, and most installs have none.
func TestDoctorNoHelper(t *testing.T) {
	schemas, _ := filepath.Abs(schemaDir)
	writeSkills(t, map[string]string{"skills/good/SKILL.md": cleanSkill})
	t.Setenv("PATH", t.TempDir())
	ios, out, errb := fakeIO(nil)
	if code := run(ios, []string{"doctor"}); code != ExitOK {
		t.Fatalf("exit %d, want 0: %s", code, errb)
	}
	if want := "skillpack-sign: skillpack-sign is neither beside skillpack nor on PATH; only --sign needs it: install it with " + sign.Install(); !strings.Contains(out.String(), want) {
		t.Errorf("stdout:\n%s\nwant a line starting %q", out, want)
	}
	if errb.Len() > 0 {
		t.Errorf("stderr %q, want none", errb)
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

// An empty output folder is one the build writes into as into none
// (doctor called it foreign, which build would not replace); a stranger's
// file makes it foreign, as build says.
func TestDoctorDistState(t *testing.T) {
	dir := t.TempDir()
	if d := doctorDistState(dir); d.State != "absent" || d.Problem != "" {
		t.Errorf("empty folder: %+v, want absent", d)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("site"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := doctorDistState(dir); d.State != "foreign" || !strings.Contains(d.Problem, "without --force") {
		t.Errorf("a stranger's file: %+v, want foreign", d)
	}
}
