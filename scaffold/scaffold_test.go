package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/lint"
)

// A new skill must pass lint at every level, or the first thing a user sees
// is skillpack complaining about its own output.
func TestNewIsLintClean(t *testing.T) {
	parent := t.TempDir()
	for _, name := range []string{"pdf-tools", "a", "x1-y2"} {
		dir, err := New(parent, name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := lint.Run([]string{dir}, lint.Options{Base: parent, Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Findings {
			if f.Severity >= lint.Info {
				t.Errorf("%s: %s:%d: %s [%s]", name, f.Path, f.Line, f.Message, f.Rule)
			}
		}
		data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "name: "+name+"\n") {
			t.Errorf("SKILL.md does not carry the name:\n%s", data)
		}
	}
}

func TestNewDescription(t *testing.T) {
	dir, err := New(t.TempDir(), "pdf-tools", Options{Description: "Fill and merge PDF forms when the user works with PDFs."})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if !strings.Contains(string(data), "description: Fill and merge PDF forms when the user works with PDFs.\n") {
		t.Errorf("description not used:\n%s", data)
	}
	if _, err := New(t.TempDir(), "pdf-tools", Options{Description: "Convert <x> files"}); err == nil {
		t.Error("a description with < > was accepted")
	}
}

func TestNewRefuses(t *testing.T) {
	parent := t.TempDir()
	for _, bad := range []string{"", "PDF", "pdf_tools", "-pdf", "pdf-", "a--b", "café", strings.Repeat("a", 65), "../escape"} {
		if _, err := New(parent, bad, Options{}); err == nil {
			t.Errorf("name %q was accepted", bad)
		}
	}
	if err := os.Mkdir(filepath.Join(parent, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := New(parent, "taken", Options{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("an existing folder was not refused: %v", err)
	}
	ents, _ := os.ReadDir(parent)
	if len(ents) != 1 {
		t.Errorf("refused names left files behind: %v", ents)
	}
}
