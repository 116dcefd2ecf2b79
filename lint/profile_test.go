package lint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
)

// specLevels is every rule's severity before issue 31 made the default
// profile weigh rules by what the clients accept, when they were the spec
// profile's and skillpack's defaults, which docs/lint.md compares with
// skills-ref. The spec profile keeps them (metadata-nested, split from
// metadata-format, keeps that rule's error).
var specLevels = map[string]Severity{
	"allowed-tools-list": Warning, "allowed-tools-type": Error, "body-empty": Warning,
	"body-too-long": Warning, "body-too-many-tokens": Warning, "code-fence-unclosed": Warning,
	"compatibility-format": Error, "description-angle-brackets": Warning, "description-equals-name": Warning,
	"description-length": Error, "description-missing": Error, "description-short": Warning,
	"file-not-regular": Error, "file-too-large": Warning, "file-unreadable": Error, "file-unreferenced": Info,
	"frontmatter-missing": Error, "frontmatter-not-mapping": Error, "frontmatter-start": Error,
	"frontmatter-unclosed": Error, "frontmatter-yaml": Error, "installed-folder": Warning,
	"installed-metadata": Warning, "invisible-char": Warning, "invisible-unicode": Error, "junk-file": Warning,
	"license-type": Error, "link-absolute": Warning, "link-broken": Warning, "link-outside": Warning,
	"metadata-format": Error, "metadata-nested": Error, "metadata-scalar": Warning,
	"name-bundle-clash": Error, "name-duplicate": Error, "name-format": Error, "name-mismatch": Error,
	"name-missing": Error, "name-non-ascii": Error, "path-collision": Error, "path-too-long": Error,
	"path-unpackable": Error, "plugin-manifest": Error, "plugin-manifest-schema": Error, "plugin-mcp-command": Error,
	"plugin-mcp-schema": Error, "plugin-name-duplicate": Error, "plugin-skills": Warning, "marketplace-plugin-duplicate": Warning, "marketplace-plugin-source": Warning, "path-windows": Warning, "reference-depth": Warning, "script-crlf": Warning,
	"script-not-executable": Warning, "secret": Error, "skill-md-encoding": Error, "skill-md-name": Warning,
	"skill-md-too-large": Warning, "skill-md-unreadable": Error, "skill-dangling": Warning, "file-git-ignored": Warning, "skill-mirror": Error, "skill-nested": Warning,
	"skill-too-large": Warning, "skill-too-many-files": Warning, "suppression-invalid": Warning,
	"suppression-unused": Warning, "symlink": Warning, "symlink-escape": Error, "text-encoding": Warning,
	"lfs-pointer": Error, "marketplace-manifest": Error, "unknown-key": Warning, "version-semver": Warning, "yaml-ambiguous-scalar": Warning, "yaml-anchor": Error,
	"yaml-colon-space": Warning, "yaml-complex-key": Error, "yaml-duplicate-key": Error,
	"yaml-deep-nesting": Error, "yaml-quote-indent": Error, "yaml-flow-lines": Error, "yaml-flow-mapping": Error, "yaml-flow-sequence": Warning, "yaml-indent-indicator": Error, "yaml-key-in-block": Warning, "yaml-multiline-quote": Warning,
	"yaml-proto-key": Error, "yaml-special-float": Error, "yaml-tab-indent": Error, "yaml-tag": Error,
}

// TestSpecProfileLevels holds the spec profile to its parity: every
// rule weighs under it what it weighed before the default profile became
// the clients', and only the rules the spec profile lists are weighed
// otherwise by default, each lower.
func TestSpecProfileLevels(t *testing.T) {
	spec, err := LookupProfile("spec")
	if err != nil {
		t.Fatal(err)
	}
	def, _ := LookupProfile("")
	if def.Name != "clients" || newRunner(Options{}).set.Profile != def {
		t.Fatalf("the default profile is %s, want clients", def.Name)
	}
	for _, r := range Rules() {
		want, ok := specLevels[r.ID]
		if !ok {
			t.Errorf("%s: add the rule to specLevels with its level under the spec profile", r.ID)
			continue
		}
		if got := spec.level(r); got != want {
			t.Errorf("%s is %s under the spec profile, want %s", r.ID, got, want)
		}
		if _, raised := spec.Severity[r.ID]; raised != (def.level(r) != want) {
			t.Errorf("%s: %s by default and %s under spec, but the spec profile %s it", r.ID, def.level(r), want,
				map[bool]string{true: "raises", false: "does not raise"}[raised])
		}
		// skills-ref accepts skill.md, which the clients and the build
		// do not: the one rule that weighs more by default than under spec.
		if def.level(r) > want && r.ID != "skill-md-name" {
			t.Errorf("%s weighs more by default (%s) than under spec (%s)", r.ID, def.level(r), want)
		}
	}
}

// TestSpecProfile lints the shapes that the clients accept and the
// specification does not, as found in public repositories: under the
// default profile each is a warning or nothing, and the tree is publishable;
// under the spec profile each is an error, as skillpack reported it before.
func TestSpecProfile(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(data), 0o644))
	}
	const desc = "description: Fill and merge PDF forms. Use when the user works with PDF files.\n"
	// A vendor's skill in a folder named otherwise (the Vercel CLI installs
	// it as vercel-deploy; Claude Code and Codex invoke it so).
	write("skills/deploy/SKILL.md", "---\nname: vercel-deploy\n"+desc+"---\n# Deploy\n")
	// OpenClaw's metadata, as its documentation writes it, in both forms.
	write("skills/weather/SKILL.md", "---\nname: weather\n"+desc+
		"metadata: {\"openclaw\": {\"emoji\": \"🌤️\", \"requires\": {\"bins\": [\"curl\"]}}}\n---\n# Weather\n")
	write("skills/notes/SKILL.md", "---\nname: notes\n"+desc+
		"metadata:\n  openclaw:\n    requires:\n      bins:\n        - rg\n---\n# Notes\n")
	// And as indented JSON, as OpenClaw's own skills write it: the MCP SDK's
	// YAML subset refuses it, the clients' YAML readers read it.
	write("skills/healing/SKILL.md", "---\nname: healing\n"+desc+
		"metadata:\n  {\n    \"openclaw\":\n      {\n        \"requires\": { \"bins\": [\"tmux\", \"jq\"] },\n      },\n  }\n---\n# Healing\n")
	write("skills/indented/SKILL.md", "---\nname: indented\ndescription: |2\n    Fill and merge PDF forms. Use when the user works with PDF files.\n---\n# Indented\n")
	write("skills/licensed/SKILL.md", "---\nname: licensed\n"+desc+"license:\n  - MIT\n  - Apache-2.0\n---\n# Licensed\n")
	write("skills/compat/SKILL.md", "---\nname: compat\n"+desc+"compatibility: \"\"\n---\n# Compat\n")

	wantSpec := map[string]int{"name-mismatch": 1, "metadata-nested": 3, "yaml-flow-mapping": 1, "yaml-flow-lines": 1,
		"yaml-indent-indicator": 1, "license-type": 1, "compatibility-format": 1}
	for _, profile := range []string{"clients", "spec"} {
		p, _ := LookupProfile(profile)
		res, err := Run([]string{dir}, Options{Settings: Settings{Profile: p}, Base: dir})
		if err != nil {
			t.Fatal(err)
		}
		errs := map[string]int{}
		for _, f := range res.Findings {
			if f.Severity == Error {
				errs[f.Rule]++
			}
		}
		switch {
		case profile == "clients" && len(errs) != 0:
			t.Errorf("profile clients: errors %v, want none", errs)
		case profile == "spec":
			for id, n := range wantSpec {
				if errs[id] != n {
					t.Errorf("profile spec: %d %s errors, want %d", errs[id], id, n)
				}
			}
			if len(errs) != len(wantSpec) {
				t.Errorf("profile spec: errors %v, want %v", errs, wantSpec)
			}
		}
	}
}

// A skill.md, which skills-ref accepts and the clients and the build do
// not, is an error by default and a warning under spec.
func TestEntryNameLevels(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pdf", "skill.md")
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte("---\nname: pdf\ndescription: Fill and merge PDF forms. Use when the user works with PDF files.\n---\n# PDF\n"), 0o644))
	for profile, want := range map[string]Severity{"clients": Error, "spec": Warning} {
		p, _ := LookupProfile(profile)
		res, err := Run([]string{dir}, Options{Settings: Settings{Profile: p}, Base: dir})
		if err != nil {
			t.Fatal(err)
		}
		var got []Severity
		for _, f := range res.Findings {
			if f.Rule == "skill-md-name" {
				got = append(got, f.Severity)
			}
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("profile %s: skill-md-name %v, want one %s", profile, got, want)
		}
	}
}

// A rule the build holds whatever the settings (Rule.Publish), lowered
// by a profile, says so in lint's finding: lint passed a skill the build
// of the same tree refused, and nothing said why.
func TestLoweredPublishRule(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{"notes/SKILL.md": "---\nname: 笔记\ndescription: Study notes. Use when the user asks for study notes.\n---\n# Notes\n"})
	relaxed, err := LookupProfile("relaxed")
	if err != nil {
		t.Fatal(err)
	}
	for _, publishing := range []bool{false, true} {
		res, err := Run([]string{dir}, Options{Base: dir, Settings: Settings{Profile: relaxed}, Publishing: publishing})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(res.Findings, func(f Finding) bool { return f.Rule == "name-non-ascii" })
		if i < 0 {
			t.Fatalf("publishing %v: no name-non-ascii finding in %v", publishing, res.Findings)
		}
		if says := strings.Contains(res.Findings[i].Message, "a build refuses it"); says == publishing {
			t.Errorf("publishing %v: %s %q", publishing, res.Findings[i].Severity, res.Findings[i].Message)
		}
	}
}
