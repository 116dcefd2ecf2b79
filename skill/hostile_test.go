package skill

// Hostile input: each case must end in a finding or a clear error, never a
// panic, a hang or unbounded memory. A hang shows as the test timing out.

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/testtool"
)

func TestHugeSkillFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	testtool.WriteTree(t, dir, map[string]string{FileName: skillMD})
	const size = 100 << 20
	// Truncate extends the file with a hole: 100 MB on paper, nothing on disk.
	if err := os.Truncate(p, size); err != nil {
		t.Fatal(err)
	}
	s := Load(dir)
	if s.Err != nil || s.Doc == nil {
		t.Fatalf("Load: Err = %v", s.Err)
	}
	if s.Size != size {
		t.Errorf("Size = %d, want the real size %d", s.Size, size)
	}
	if len(s.Doc.Raw) > MaxRead {
		t.Errorf("read %d bytes, more than MaxRead (%d)", len(s.Doc.Raw), MaxRead)
	}
	if name, ok := s.Doc.String("name"); !ok || name != "s" {
		t.Errorf("frontmatter of the huge file not parsed: %q, Problem %+v", name, s.Doc.Problem)
	}
}

// TestFrontmatterPastReadLimit: a frontmatter whose closing line lies past
// the read limit is too long, and the problem says so, where the limit
// falls, rather than that it is never closed (a "---" added after it would
// not help). At the limit exactly, the file is whole and nothing changes.
func TestFrontmatterPastReadLimit(t *testing.T) {
	const notes = "  a line of notes that goes on and on, far longer than any frontmatter should\n" // 80 bytes
	head := "---\nname: s\ndescription: A test skill that does nothing at all.\nnotes: |\n"
	long := head + strings.Repeat(notes, (MaxRead+1000)/len(notes)) + "---\nbody\n"
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{FileName: long})
	s := Load(dir)
	if s.Err != nil || s.Doc == nil {
		t.Fatalf("Load: Err = %v", s.Err)
	}
	d := s.Doc
	// The limit falls on this line: the lines before it whole, and a part of it.
	limitLine := 4 + (MaxRead-len(head))/len(notes) + 1
	if !d.Truncated || len(d.Raw) != MaxRead || d.Problem == nil || d.Problem.Kind != Unclosed || d.Problem.Line != 1 {
		t.Fatalf("Truncated %v, %d bytes read, Problem %+v; want truncated at MaxRead, Unclosed at line 1", d.Truncated, len(d.Raw), d.Problem)
	}
	for _, want := range []string{"not closed within the first 1 MiB (1048576 bytes, to line " + strconv.Itoa(limitLine) + ")", "too long"} {
		if !strings.Contains(d.Problem.Msg, want) {
			t.Errorf("Msg = %q, want it to say %q", d.Problem.Msg, want)
		}
	}
	if strings.Contains(d.Problem.Msg, "never closed") {
		t.Errorf("Msg = %q says never closed", d.Problem.Msg)
	}

	// A file of MaxRead bytes exactly is read whole: no frontmatter past
	// the limit, and an unclosed one is never closed.
	for _, tc := range []struct {
		name, text, msg string
	}{
		{"closed", skillMD, ""},
		{"unclosed", head, "never closed"},
	} {
		text := tc.text + strings.Repeat("x", MaxRead-len(tc.text))
		testtool.WriteTree(t, dir, map[string]string{FileName: text})
		d := Load(dir).Doc
		switch {
		case d.Truncated || len(d.Raw) != MaxRead:
			t.Errorf("%s, MaxRead bytes: Truncated %v, %d bytes read; want the whole file", tc.name, d.Truncated, len(d.Raw))
		case tc.msg == "" && d.Problem != nil, tc.msg != "" && (d.Problem == nil || !strings.Contains(d.Problem.Msg, tc.msg)):
			t.Errorf("%s, MaxRead bytes: Problem %+v, want %q", tc.name, d.Problem, tc.msg)
		}
	}
}

func TestBinaryJunk(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := range 50 {
		data := make([]byte, 1+r.Intn(8192))
		r.Read(data)
		data[0] = 0 // a NUL first: nothing that could pass for a fence
		for j := 0; j < len(data); j += 97 {
			data[j] = 0
		}
		d := Parse(data)
		if d.Problem == nil || d.Problem.Kind != NoFrontmatter || d.Front != nil {
			t.Fatalf("junk %d: Problem = %+v, want NoFrontmatter", i, d.Problem)
		}
		if len(d.Body) != len(data) || d.BodyLine != 1 {
			t.Fatalf("junk %d: the whole file must be the body", i)
		}
	}
	// Junk after a valid opening fence is the frontmatter's problem.
	junk := make([]byte, 4096)
	r.Read(junk)
	d := Parse(append([]byte("---\n"), junk...))
	if d.Problem == nil || d.Front != nil {
		t.Errorf("fence then junk: Problem = %+v, Front = %v", d.Problem, d.Front)
	}

	// The same through the file system.
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{FileName: "\x00\x01\xff\xfe binary \x00"})
	s := Load(dir)
	if s.Err != nil || s.Doc == nil || s.Doc.Problem == nil || s.Doc.Problem.Kind != NoFrontmatter {
		t.Errorf("Load(junk) = %+v", s)
	}
}

func TestYAMLBombs(t *testing.T) {
	var laughs strings.Builder
	laughs.WriteString("---\nname: lol\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		refs := strings.Repeat("*"+prev+",", 9)
		fmt.Fprintf(&laughs, "%c: &%c [%s]\n", c, c, refs[:len(refs)-1])
		prev = string(c)
	}
	laughs.WriteString("---\n")

	tests := []struct {
		name string
		in   string
	}{
		{"billion laughs", laughs.String()},
		{"deep flow sequence", "---\nname: x\nv: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n---\n"},
		{"deep unclosed flow", "---\nv: " + strings.Repeat("[", 100_000) + "\n---\n"},
		{"deep flow mapping", "---\nv: " + strings.Repeat("{a: ", 100_000) + "\n---\n"},
		{"deep block sequence", "---\nv:\n" + strings.Repeat("- ", 100_000) + "x\n---\n"},
		{"deep block mapping", "---\n" + func() string {
			var b strings.Builder
			for i := range 1000 {
				b.WriteString(strings.Repeat(" ", i) + "k:\n")
			}
			return b.String()
		}() + "---\n"},
		{"many aliases", "---\na: &a x\nb: [" + strings.Repeat("*a,", 100_000) + "*a]\n---\n"},
		{"huge key", "---\n" + strings.Repeat("k", 1<<20) + ": v\n---\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			d := Parse([]byte(tt.in))
			if d.Front == nil && d.Problem == nil {
				t.Fatal("neither Front nor Problem")
			}
			if d.Problem != nil && (d.Problem.Line < 1 || d.Problem.Msg == "") {
				t.Errorf("Problem %+v has no position or message", *d.Problem)
			}
			t.Logf("%v; Problem %v", time.Since(start), d.Problem)
		})
	}

	// Parse keeps aliases as nodes, so the bomb costs nothing until someone
	// decodes it. Downstream code that turns frontmatter into Go values
	// relies on yaml.v3 refusing the expansion; check that it still does.
	d := Parse([]byte(laughs.String()))
	if d.Front == nil {
		t.Fatalf("billion laughs: no Front, Problem %+v", d.Problem)
	}
	var v any
	if err := d.Front.Decode(&v); err == nil || !strings.Contains(err.Error(), "excessive aliasing") {
		t.Errorf("decoding the billion laughs: err = %v, want excessive aliasing", err)
	}
}

// A folder link pointing at its parent must neither trap Discover nor
// Collect.
func TestSymlinkLoops(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		"skills/pdf/SKILL.md":     skillMD,
		"skills/pdf/sub/file.txt": "",
	})
	symlink(t, root, "skills/pdf/sub/up", "..")        // to the skill itself
	symlink(t, root, "skills/pdf/sub/top", "../../..") // to the tree's root, outside the skill
	symlink(t, root, "skills/loop", ".")
	symlink(t, root, "skills/pdf/a", "b")
	symlink(t, root, "skills/pdf/b", "a")

	got, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	if d := dirs(t, root, got); !reflect.DeepEqual(d, []string{"skills/pdf"}) {
		t.Fatalf("Discover = %q", d)
	}
	fs, err := Collect(got[0].Dir)
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]RefusedKind{}
	for _, r := range fs.Refused {
		refused[r.Path] = r.Kind
	}
	want := map[string]RefusedKind{"sub/up": LinkBroken, "sub/top": LinkEscapes, "a": LinkBroken, "b": LinkBroken}
	if !reflect.DeepEqual(refused, want) {
		t.Errorf("Refused = %v, want %v", refused, want)
	}
	if want := []string{"SKILL.md", "sub/file.txt"}; !reflect.DeepEqual(paths(fs.Files), want) {
		t.Errorf("Files = %q, want %q", paths(fs.Files), want)
	}
}

// A pre-commit hook passes every changed path, links included, as git
// stores them: as files. The skill holding the link is what to lint.
func TestDiscoverSymlinkArgument(t *testing.T) {
	root := t.TempDir()
	testtool.WriteTree(t, root, map[string]string{
		"pdf/SKILL.md":       skillMD,
		"elsewhere/x.txt":    "",
		"real/one/SKILL.md":  skillMD,
		"real/two/SKILL.md":  skillMD,
		"outside/readme.txt": "",
	})
	symlink(t, root, "pdf/dangling", "nope")
	symlink(t, root, "pdf/ext", filepath.Join(root, "elsewhere"))
	symlink(t, root, "pdf/to-other-skill", filepath.Join(root, "real", "one"))
	symlink(t, root, "linked", "real")
	symlink(t, root, "outside/dangling", "nope")
	symlink(t, root, "outside/file", "readme.txt")

	for _, p := range []string{"pdf/dangling", "pdf/ext", "pdf/to-other-skill"} {
		got, err := Discover(filepath.Join(root, p))
		if err != nil {
			t.Errorf("Discover(%s): %v", p, err)
			continue
		}
		if d := dirs(t, root, got); !reflect.DeepEqual(d, []string{"pdf"}) {
			t.Errorf("Discover(%s) = %q, want the skill holding the link", p, d)
		}
	}
	// A linked folder outside any skill is the user naming it: walk it,
	// reporting paths under the link's name.
	got, err := Discover(filepath.Join(root, "linked"))
	if err != nil {
		t.Fatal(err)
	}
	if d := dirs(t, root, got); !reflect.DeepEqual(d, []string{"linked/one", "linked/two"}) {
		t.Errorf("Discover(linked) = %q", d)
	}
	for _, s := range got {
		if s.Doc == nil {
			t.Errorf("%s not loaded: %v", s.Dir, s.Err)
		}
	}
	for _, p := range []string{"outside/dangling", "outside/file"} {
		got, err := Discover(filepath.Join(root, p))
		if err != nil || len(got) != 0 {
			t.Errorf("Discover(%s) = %q, %v; want nothing and no error", p, dirs(t, root, got), err)
		}
	}
	if got := Enclosing(filepath.Join(root, "pdf", "dangling")); got != filepath.Join(root, "pdf") {
		t.Errorf("Enclosing(dangling link) = %q", got)
	}
}

func TestManySkills(t *testing.T) {
	root := memTempDir(t)
	const n = 10_000
	// One file hard-linked into every folder: two system calls a skill
	// keeps the setup cheap. Unnumbered names make the sort matter.
	src := filepath.Join(root, "src.md")
	testtool.WriteTree(t, root, map[string]string{"src.md": "---\nname: x\n---\n"})
	for g := range 7 {
		testtool.WriteTree(t, root, map[string]string{fmt.Sprintf("g%d/", g): ""})
	}
	const workers = 8 // the file system waits on metadata; overlap it
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			var err error
			for i := w; i < n && err == nil; i += workers {
				dir := filepath.Join(root, fmt.Sprintf("g%d", i%7), fmt.Sprintf("s%d", i))
				if err = os.Mkdir(dir, 0o755); err == nil {
					err = os.Link(src, filepath.Join(dir, FileName))
				}
			}
			errs <- err
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Skipf("cannot set up: %v", err)
		}
	}
	start := time.Now()
	got, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Discover of %d skills: %v", n, time.Since(start))
	if len(got) != n {
		t.Fatalf("found %d skills, want %d", len(got), n)
	}
	if !sort.SliceIsSorted(got, func(i, j int) bool { return got[i].Dir < got[j].Dir }) {
		t.Error("skills not sorted by folder")
	}
	seen := map[string]bool{}
	for _, s := range got {
		if seen[s.Dir] {
			t.Fatalf("%s found twice", s.Dir)
		}
		seen[s.Dir] = true
		if s.Doc == nil {
			t.Fatalf("%s: %v", s.Dir, s.Err)
		}
	}
}

func TestUnreadableSkillFile(t *testing.T) {
	if os.Geteuid() != 0 {
		dir := t.TempDir()
		testtool.WriteTree(t, dir, map[string]string{FileName: skillMD})
		p := filepath.Join(dir, FileName)
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(p, 0o644)
		got, err := Discover(dir)
		if err != nil || len(got) != 1 {
			t.Fatalf("Discover = %v, %v; want the skill, with Err", got, err)
		}
		if s := got[0]; s.Doc != nil || s.Err == nil || !strings.Contains(s.Err.Error(), "permission denied") {
			t.Errorf("Load(chmod 000) = Doc %v, Err %v", s.Doc, s.Err)
		}
	}

	// Root reads anything, so also test what no permission bit can fix:
	// an entry "file" that is a folder or a named pipe.
	dir := t.TempDir()
	testtool.WriteTree(t, dir, map[string]string{FileName + "/": ""})
	if s := Load(dir); s.Doc != nil || s.Err == nil || !strings.Contains(s.Err.Error(), "not a regular file") {
		t.Errorf("Load(SKILL.md folder) = Doc %v, Err %v", s.Doc, s.Err)
	}
	if got, err := Discover(dir); err != nil || len(got) != 0 {
		t.Errorf("Discover(SKILL.md folder) = %d skills, %v; want none", len(got), err)
	}

	dir = t.TempDir()
	mkfifo(t, filepath.Join(dir, FileName))
	done := make(chan *Skill)
	go func() { done <- Load(dir) }()
	select {
	case s := <-done:
		if s.Doc != nil || s.Err == nil || !strings.Contains(s.Err.Error(), "not a regular file") {
			t.Errorf("Load(fifo) = Doc %v, Err %v", s.Doc, s.Err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load blocked on a named pipe")
	}
}

// memTempDir is t.TempDir, in memory where the system offers it: twenty
// thousand folders and links cost seconds on a busy disk, and nothing here
// is about disks.
func memTempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("/dev/shm", "skilltest")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
