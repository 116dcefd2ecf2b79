package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/skill"
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

// TestNewDescriptionRoundTrips gives new descriptions that YAML would
// read as something else if written plain: each reads back exactly from
// the SKILL.md written, and lint finds no error in it.
func TestNewDescriptionRoundTrips(t *testing.T) {
	const use = " Use when the user asks to fill, merge or split PDF forms."
	for _, desc := range []string{
		"Fill PDF forms: text fields, boxes and signatures." + use,
		"Fill PDF forms #fast and # more." + use,
		`Fill "PDF" forms, the user's own.` + use,
		"'Fill' PDF forms." + use,
		"Fill PDF forms.\nMerge them too." + use,
		"- Fill PDF forms." + use,
		"* Fill PDF forms." + use,
		"&anchor Fill PDF forms." + use,
		"!tag Fill PDF forms, % done, @user, `code`." + use,
		"Füllt PDF-Formulare aus ✓ 日本語のフォーム." + use,
		"yes",
		"1.0",
		"Fill PDF forms:" + use + ":",
	} {
		parent := t.TempDir()
		dir, err := New(parent, "pdf-tools", Options{Description: desc})
		if err != nil {
			t.Fatalf("%q: %v", desc, err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		d := skill.Parse(data)
		var front struct{ Name, Description string }
		if d.Problem != nil || d.Front == nil || d.Front.Decode(&front) != nil || front.Name != "pdf-tools" || front.Description != desc {
			t.Errorf("%q reads back as %+v (%+v):\n%s", desc, front, d.Problem, data)
			continue
		}
		res, err := lint.Run([]string{dir}, lint.Options{Base: parent})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Findings {
			if f.Severity >= lint.Error || strings.HasPrefix(f.Rule, "yaml-") {
				t.Errorf("%q: %s:%d: %s [%s]\n%s", desc, f.Path, f.Line, f.Message, f.Rule, data)
			}
		}
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
