// Package bench generates the synthetic skill trees that the build
// benchmark runs on (bench/run.sh, bench/gen and the Go benchmarks in this
// package).
//
// A tree is a pure function of its size: each skill has its own PRNG
// seeded from its number, so the first 2000 skills of a 10000-skill tree
// are the same bytes as a 2000-skill tree, and runs on different machines
// compare.
//
// GenerateFindings writes the same tree with two lint findings in every
// skill, a warning and an info, and no error: see there.
package bench

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// seed pins the trees; change it only together with the figures in
// bench/README.md.
const seed = 0x5ce11_9ac4

// Generate writes n skills, skill-00001 to skill-NNNNN, into dir. Each
// holds a SKILL.md that passes skillpack lint and links every other file,
// and three to five more files under references/, scripts/ and assets/ of
// 2–20 KB of text drawn from a fixed vocabulary: words, not random bytes,
// so that deflate does the work it does on real skills. dir must not exist
// or be empty: adding skills to an old tree would make the figures
// meaningless.
func Generate(dir string, n int) error { return generate(dir, n, false) }

// GenerateFindings writes the tree Generate writes, plus in every skill
// two files that lint reports but that do not stop a build:
//
//   - scripts/bench_setup.py, a Python script with a shebang, mode 0644,
//     linked from a "## Setup" section appended to SKILL.md: a warning
//     (script-not-executable);
//   - assets/bench-orphan.txt, which no file of the skill names: an info
//     (file-unreferenced). It also makes lint read every other text file
//     of the skill, looking for a mention, as it must on real trees with
//     such a file.
//
// The other files are the same bytes as Generate's. The two files' text
// comes from a PRNG of its own, so the tree is a pure function of n too.
func GenerateFindings(dir string, n int) error { return generate(dir, n, true) }

// FindingsRules are the rules each skill of a GenerateFindings tree breaks,
// once each.
var FindingsRules = []string{"file-unreferenced", "script-not-executable"}

// findingsSeed seeds the PRNG of the files GenerateFindings adds.
const findingsSeed = seed ^ 0xf1d_1295

// GenerateMarketplace writes Generate's skills as a Claude plugin
// marketplace: plugin-NNNNN/skills/skill-NNNNN under plugins/, each plugin
// with its manifest, and .claude-plugin/marketplace.json listing them all.
// The skills are the same bytes as Generate's, so a build of the two trees
// differs by what plugins and marketplaces cost (bench/market.sh).
func GenerateMarketplace(dir string, n int) error {
	if err := generate(filepath.Join(dir, "plugins"), 0, false); err != nil {
		return err
	}
	var entries []string
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("plugin-%05d", i)
		pl := filepath.Join(dir, "plugins", name)
		if err := writeSkill(filepath.Join(pl, "skills"), i, false); err != nil {
			return err
		}
		manifest := fmt.Sprintf(`{"name": %q, "description": "Plugin %d of the benchmark.", "version": "1.0.0"}`+"\n", name, i)
		if err := writeFile(filepath.Join(pl, ".claude-plugin", "plugin.json"), manifest); err != nil {
			return err
		}
		entries = append(entries, fmt.Sprintf(`    {"name": %q, "source": "./plugins/%s"}`, name, name))
	}
	market := `{"name": "bench", "owner": {"name": "bench"}, "plugins": [` + "\n" + strings.Join(entries, ",\n") + "\n  ]}\n"
	return writeFile(filepath.Join(dir, ".claude-plugin", "marketplace.json"), market)
}

// writeFile writes data to p, making its folder.
func writeFile(p, data string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(data), 0o644)
}

func generate(dir string, n int, findings bool) error {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s is not empty; give a new folder", dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for i := 1; i <= n; i++ {
		if err := writeSkill(dir, i, findings); err != nil {
			return err
		}
	}
	return nil
}

// file is one generated file of a skill.
type file struct {
	path string // slash-separated, relative to the skill folder
	data []byte
	exec bool
}

func writeSkill(root string, i int, findings bool) error {
	name := fmt.Sprintf("skill-%05d", i)
	g := newText(uint64(i))
	files := g.extraFiles()
	md := g.skillMD(name, files)
	if findings {
		files, md = withFindings(files, md, i)
	}
	files = append(files, file{path: "SKILL.md", data: md})
	for _, f := range files {
		p := filepath.Join(root, name, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return err
		}
		if f.exec {
			// Chmod, not WriteFile's mode, so that the umask cannot drop the
			// bit the lint rule script-not-executable asks for.
			if err := os.Chmod(p, 0o755); err != nil {
				return err
			}
		}
	}
	return nil
}

// withFindings adds the two files of GenerateFindings to a skill's files
// and the link to the script to its SKILL.md. Neither name uses a word of
// the vocabulary, so that no other file mentions them by chance.
func withFindings(files []file, md []byte, i int) ([]file, []byte) {
	f := &text{r: rand.New(rand.NewPCG(findingsSeed, uint64(i)))}
	f.z = rand.NewZipf(f.r, 1.1, 4, uint64(len(vocab)-1))
	const script, orphan = "scripts/bench_setup.py", "assets/bench-orphan.txt"
	files = append(files,
		// exec false: mode 0644 with a shebang.
		file{path: script, data: f.python(f.between(2<<10, 20<<10))},
		file{path: orphan, data: f.plain(f.between(2<<10, 20<<10))})
	// A link, not "python3 scripts/bench_setup.py": running it through its
	// interpreter would excuse the missing execute bit.
	md = append(md, "\n## Setup\n\nSee [the setup script]("+script+") before the first run.\n"...)
	return files, md
}

// text draws words from the vocabulary with a Zipf distribution, as words
// in real prose are, so that the compression ratio is realistic.
type text struct {
	r *rand.Rand
	z *rand.Zipf
}

func newText(skill uint64) *text {
	r := rand.New(rand.NewPCG(seed, skill))
	return &text{r: r, z: rand.NewZipf(r, 1.1, 4, uint64(len(vocab)-1))}
}

func (t *text) word() string { return vocab[t.z.Uint64()] }

// between returns a number in [lo, hi].
func (t *text) between(lo, hi int) int { return lo + t.r.IntN(hi-lo+1) }

// sentence is 6–18 words, capitalised, ending in a full stop.
func (t *text) sentence() string {
	n := t.between(6, 18)
	w := make([]string, n)
	for i := range w {
		w[i] = t.word()
	}
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return strings.Join(w, " ") + "."
}

// paragraph writes 2–6 sentences wrapped at 72 columns with prefix at the
// start of each line.
func (t *text) paragraph(b *bytes.Buffer, prefix string) {
	col := 0
	for range t.between(2, 6) {
		for _, w := range strings.Fields(t.sentence()) {
			switch {
			case col == 0:
				b.WriteString(prefix)
				col = len(prefix)
			case col+1+len(w) > 72:
				b.WriteString("\n" + prefix)
				col = len(prefix)
			default:
				b.WriteByte(' ')
				col++
			}
			b.WriteString(w)
			col += len(w)
		}
	}
	b.WriteString("\n")
}

func (t *text) title() string {
	w := t.word()
	return strings.ToUpper(w[:1]) + w[1:] + " " + t.word() + " " + t.word()
}

// extraFiles returns 3–5 files of 2–20 KB with distinct paths.
func (t *text) extraFiles() []file {
	var files []file
	seen := map[string]bool{}
	for n := t.between(3, 5); len(files) < n; {
		a, b := t.r.IntN(len(vocab)), t.r.IntN(len(vocab))
		size := t.between(2<<10, 20<<10)
		var f file
		switch t.r.IntN(3) {
		case 0:
			f = file{path: "references/" + vocab[a] + "-" + vocab[b] + ".md", data: t.markdown(size)}
		case 1:
			f = file{path: "scripts/" + vocab[a] + "_" + vocab[b] + ".py", data: t.python(size), exec: true}
		default:
			f = file{path: "assets/" + vocab[a] + "-" + vocab[b] + ".txt", data: t.plain(size)}
		}
		if !seen[f.path] {
			seen[f.path] = true
			files = append(files, f)
		}
	}
	return files
}

func (t *text) markdown(size int) []byte {
	var b bytes.Buffer
	b.WriteString("# " + t.title() + "\n")
	for b.Len() < size {
		b.WriteString("\n## " + t.title() + "\n\n")
		t.paragraph(&b, "")
		b.WriteString("\n")
		t.paragraph(&b, "")
	}
	return b.Bytes()
}

func (t *text) plain(size int) []byte {
	var b bytes.Buffer
	for b.Len() < size {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		t.paragraph(&b, "")
	}
	return b.Bytes()
}

func (t *text) python(size int) []byte {
	var b bytes.Buffer
	b.WriteString("#!/usr/bin/env python3\n\"\"\"" + t.sentence() + "\"\"\"\n\nimport sys\n")
	for b.Len() < size {
		fn := t.word() + "_" + t.word()
		fmt.Fprintf(&b, "\n\ndef %s(items):\n    \"\"\"%s\"\"\"\n", fn, t.sentence())
		t.paragraph(&b, "    # ")
		fmt.Fprintf(&b, "    out = []\n    for item in items:\n        if item.startswith(%q):\n", t.word())
		fmt.Fprintf(&b, "            out.append(%q)\n    return out\n", t.sentence())
	}
	b.WriteString("\n\ndef main():\n    print(\"\\n\".join(sys.argv[1:]))\n\n\nif __name__ == \"__main__\":\n    main()\n")
	return b.Bytes()
}

// skillMD writes a SKILL.md that links every other file one level deep, so
// that lint has nothing to say (file-unreferenced, reference-depth), with a
// body of 2–16 KB: under the 500-line and 5000-token body limits.
func (t *text) skillMD(name string, files []file) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\n---\n\n# %s\n\n", name, t.description(), t.title())
	t.paragraph(&b, "")
	b.WriteString("\n## Files\n\n")
	for _, f := range files {
		fmt.Fprintf(&b, "- [%s](%s): %s\n", f.path, f.path, t.sentence())
	}
	size := t.between(2<<10, 16<<10)
	for b.Len() < size {
		b.WriteString("\n## " + t.title() + "\n\n")
		t.paragraph(&b, "")
	}
	return b.Bytes()
}

// description is 60–200 characters of plain words: no colon, quote or
// angle bracket that YAML or a client could trip on.
func (t *text) description() string {
	want := t.between(60, 200)
	var b strings.Builder
	b.WriteString("Handles")
	for b.Len()+1 < want {
		// Below 60 any word goes (the longest keeps it far under 200);
		// above, stop at the first word that would pass want.
		w := t.word()
		if b.Len()+1 >= 60 && b.Len()+1+len(w)+1 > want {
			break
		}
		b.WriteString(" " + w)
	}
	b.WriteString(".")
	return b.String()
}

// vocab is the fixed word list, most frequent first (Zipf draws favour the
// front). No word is a YAML 1.1 boolean or a Windows device name.
var vocab = strings.Fields(`
the of and to in for is with that by this from are as be or it each file
when use run skill data output input value report check table list step
user agent tool script command result error field line text format name
version request response record column row entry option path folder note
build test source target config model summary query index cache server
client token limit range default number string object array section page
document parser schema header footer message event status state update
change review release commit branch merge issue label project package
module function method class type layout bundle archive digest checksum
stream buffer writer reader encoder decoder channel worker queue task job
batch sample metric trace log level warning notice detail context scope
policy rule finding severity profile filter sort group count total average
median minimum maximum window period interval daily weekly monthly region
account customer order invoice payment product price stock vendor supplier
shipment carrier address contact phone email meeting calendar agenda slide
chart graph figure image caption title author editor draft template style
theme color font margin border padding width height align center left
right top bottom inner outer before after first last next previous early
late quick slow small large short long simple complex clear exact rough
valid invalid empty full partial complete pending active closed open
stable legacy modern portable secure private public shared local remote
network storage memory processor thread process signal timer clock date
month year week hour minute second locale language region currency unit
measure convert compare extract transform load merge split join select
filter validate normalize render publish install remove upgrade restore
backup archive compress expand encode decode parse format print export
import fetch send receive accept reject retry cancel resume pause start
finish create delete rename move copy link mount scan search match replace
`)
