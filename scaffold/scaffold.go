// Package scaffold creates a new, lint-clean skill from the templates in
// package templates.
package scaffold

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/template"

	"gopkg.in/yaml.v3"

	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
	"github.com/skillpack/skillpack/templates"
)

// Options describe the skill to create. The zero value (with a name) gives
// placeholder text that passes lint, for the author to replace.
type Options struct {
	Description string // what the skill does and when to use it
}

// New writes a skill named name into the folder parent/name and returns that
// folder. It refuses invalid names and existing folders, and writes into a
// temporary folder first, so a failure leaves nothing behind.
func New(parent, name string, opts Options) (string, error) {
	if err := layout.CheckName(name); err != nil {
		return "", fmt.Errorf("invalid skill name %q: %w (did you mean %s?): a name is 1-64 lowercase letters, digits and single hyphens", name, err, skill.SuggestName(name))
	}
	dir := filepath.Join(parent, name)
	if _, err := os.Lstat(dir); err == nil {
		return "", fmt.Errorf("%s already exists; choose another name or folder", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	words := strings.ReplaceAll(name, "-", " ")
	desc := cmp.Or(opts.Description, "Helps with "+words+" tasks. Replace this text with what the skill does and when an agent should use it.")
	if strings.ContainsAny(desc, "<>") {
		return "", errors.New("the description must not contain < or >: Anthropic's upload rejects them")
	}
	// The frontmatter is written by the YAML encoder so that any
	// description reads back exactly: text holding ": ", " #", quotes or a
	// leading "-", "*" or "&" is quoted, and one of several lines is a
	// block scalar; YAML 1.1's booleans and numbers are quoted too, for
	// the readers that still use it.
	front, err := yaml.Marshal(struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}{name, desc})
	if err != nil {
		return "", err
	}
	data := struct{ Name, Title, Frontmatter, When string }{
		Name:        name,
		Title:       strings.ToUpper(words[:1]) + words[1:], // "pdf-tools" → "Pdf tools"
		Frontmatter: string(front),
		When:        "the user asks for help with " + words,
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, "."+name+".new-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	err = fs.WalkDir(templates.Scaffold, "scaffold", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := fs.ReadFile(templates.Scaffold, p)
		if err != nil {
			return err
		}
		rel, tmpl := strings.CutSuffix(strings.TrimPrefix(p, "scaffold/"), ".tmpl")
		if tmpl {
			t, err := template.New(rel).Option("missingkey=error").Parse(string(src))
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if err := t.Execute(&out, data); err != nil {
				return err
			}
			src = out.Bytes()
		}
		dst := filepath.Join(tmp, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if path.Dir(rel) == "scripts" {
			mode = 0o755
		}
		return os.WriteFile(dst, src, mode)
	})
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	return dir, nil
}
