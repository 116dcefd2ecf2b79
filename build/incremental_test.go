package build

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillpack/skillpack/build/internal/reuse"
	"github.com/skillpack/skillpack/layout"
)

// freshTree builds src into a new folder and returns its snapshot: what an
// incremental build must equal, byte for byte.
func freshTree(t *testing.T, src string, o Options) map[string]node {
	t.Helper()
	o.Out = filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{src}, o)
	return snapshot(t, o.Out)
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return ino(info)
}

func TestNoOpRebuild(t *testing.T) {
	src, dist, first := builtExamples(t, Options{})
	before, dir := snapshot(t, dist), inode(t, dist)
	res := mustBuild(t, []string{src}, Options{Out: dist})
	if !res.UpToDate || res.Packed != 0 || res.Reused != 5 {
		t.Errorf("no-op rebuild: upToDate %v, packed %d, reused %d; want true, 0, 5", res.UpToDate, res.Packed, res.Reused)
	}
	sameTree(t, "no-op rebuild", before, snapshot(t, dist), true)
	if inode(t, dist) != dir {
		t.Error("no-op rebuild replaced the output folder")
	}
	if !reflect.DeepEqual(res.Artifacts, first.Artifacts) {
		t.Error("no-op rebuild reports other artifacts than the build it kept")
	}
	noStaging(t, filepath.Dir(dist))
}

// A skill may ship its author's folder signature (a skill.oms.sig, as
// NVIDIA's skills do): one of its files, not a signature a build wrote. A
// rebuild is still a no-op, and says nothing of signatures left behind.
func TestNoOpShippedSignature(t *testing.T) {
	src := copyExamples(t)
	writeSkillFile(t, src, "csv-profiler", layout.FolderSignatureFile, "{}\n")
	dist := filepath.Join(filepath.Dir(src), "dist")
	mustBuild(t, []string{src}, Options{Out: dist})
	before := snapshot(t, dist)
	var log strings.Builder
	if res := mustBuild(t, []string{src}, Options{Out: dist, Log: &log}); !res.UpToDate {
		t.Errorf("a skill ships a skill.oms.sig: the rebuild is not a no-op\n%s", log.String())
	}
	sameTree(t, "no-op rebuild", before, snapshot(t, dist), true)
	appendTo(t, filepath.Join(src, "commit-messages", "SKILL.md"), "\nOne more line.\n")
	log.Reset()
	mustBuild(t, []string{src}, Options{Out: dist, Log: &log})
	if strings.Contains(log.String(), "signature") {
		t.Errorf("an unsigned bundle's rebuild speaks of signatures:\n%s", log.String())
	}
	sameTree(t, "rebuild", freshTree(t, src, Options{}), snapshot(t, dist), false)
}

// A no-op rebuild decides from the record alone: it reads each input file
// once (to hash it; SKILL.md not again, it was parsed), lints nothing, and
// lays out and renders no document. A silent fallback to the slow path
// (a reuse key that no longer matches, say after archive names change)
// fails here, though the bundle it writes would be the same.
func TestNoOpDecidesFromRecord(t *testing.T) {
	src, dist, _ := builtExamples(t, Options{})
	reads := map[string]int{}
	var mu sync.Mutex
	withSeam(t, &onRead, func(p string) { mu.Lock(); reads[p]++; mu.Unlock() })
	linted := countLinted(t)
	b := newBuilder(context.Background(), []string{src}, Options{Out: dist, Jobs: 2})
	s, err := b.run()
	if err != nil {
		t.Fatal(err)
	}
	if !b.res.UpToDate || b.res.Packed != 0 || linted.Load() != 0 {
		t.Errorf("no-op: up to date %v, packed %d, linted %d; want true, 0, 0", b.res.UpToDate, b.res.Packed, linted.Load())
	}
	if s.plan != nil {
		t.Error("the no-op laid out the bundle: it did not decide from the record")
	}
	if len(reads) == 0 {
		t.Fatal("no input file was read: the test hook is not called")
	}
	for p, n := range reads {
		if n > 1 {
			t.Errorf("%s read %d times", p, n)
		}
		if filepath.Base(p) == "SKILL.md" {
			t.Errorf("%s read again after it was parsed", p)
		}
	}
}

func TestIncrementalRebuild(t *testing.T) {
	src, dist, first := builtExamples(t, Options{})
	unchanged := filepath.Join(dist, first.Skills[0].TarGz.Path) // commit-messages
	ino := inode(t, unchanged)
	appendTo(t, filepath.Join(src, "csv-profiler", "assets", "report-template.md"), "\nOne more line.\n")

	res := mustBuild(t, []string{src}, Options{Out: dist})
	if res.UpToDate || res.Packed != 1 || res.Reused != 4 {
		t.Errorf("one skill changed: upToDate %v, packed %d, reused %d; want false, 1, 4", res.UpToDate, res.Packed, res.Reused)
	}
	for _, s := range res.Skills {
		if s.Reused != (s.Name != "csv-profiler") {
			t.Errorf("%s: reused %v", s.Name, s.Reused)
		}
	}
	sameTree(t, "incremental build against a fresh one", freshTree(t, src, Options{}), snapshot(t, dist), false)
	// Reused archives are the same files, not copies.
	if inode(t, unchanged) != ino {
		t.Error("a reused archive was rewritten")
	}
	// The old archive's URL is gone with it: names are content-addressed.
	if _, err := os.Stat(filepath.Join(dist, first.Skills[1].TarGz.Path)); !os.IsNotExist(err) {
		t.Errorf("the changed skill's old archive is still served (%v)", err)
	}
	noStaging(t, filepath.Dir(dist))
}

// TestRebuildRepacks changes what the archive bytes depend on without
// changing file bytes: the exec bit and the fixed time.
func TestRebuildRepacks(t *testing.T) {
	src, dist, _ := builtExamples(t, Options{})
	if err := os.Chmod(filepath.Join(src, "repo-hygiene", "scripts", "check.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustBuild(t, []string{src}, Options{Out: dist})
	if res.Packed != 1 {
		t.Errorf("exec bit dropped: packed %d skills, want 1", res.Packed)
	}
	sameTree(t, "after an exec bit change", freshTree(t, src, Options{}), snapshot(t, dist), false)

	epoch := time.Date(2024, 1, 2, 3, 4, 6, 0, time.UTC)
	res = mustBuild(t, []string{src}, Options{Out: dist, Time: epoch})
	if res.Packed != 5 {
		t.Errorf("new SOURCE_DATE_EPOCH: packed %d skills, want all 5", res.Packed)
	}
	sameTree(t, "after a time change", freshTree(t, src, Options{Time: epoch}), snapshot(t, dist), false)
}

// TestTamperedBundle damages the previous bundle in ways a cache must
// catch: nothing damaged may be reused, and the result equals a fresh
// build.
func TestTamperedBundle(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, dist string, s Skill)
		repack int // skills packed again
	}{
		{"archive bytes", func(t *testing.T, dist string, s Skill) { flip(t, filepath.Join(dist, s.TarGz.Path)) }, 1},
		{"archive truncated", func(t *testing.T, dist string, s Skill) { os.Truncate(filepath.Join(dist, s.Zip.Path), 10) }, 1},
		{"archive removed", func(t *testing.T, dist string, s Skill) { os.Remove(filepath.Join(dist, s.Zip.Path)) }, 1},
		{"served file", func(t *testing.T, dist string, s Skill) {
			flip(t, filepath.Join(dist, ".well-known/agent-skills", s.Name, "SKILL.md"))
		}, 1},
		// The modification time says nothing changed; the change time
		// cannot be set back. Neither file is hashed again when untouched,
		// so this must be seen by the change time alone.
		{"served file, times restored", func(t *testing.T, dist string, s Skill) {
			flipKeepingTimes(t, filepath.Join(dist, ".well-known/agent-skills", s.Name, "SKILL.md"))
		}, 1},
		{"archive bytes, times restored", func(t *testing.T, dist string, s Skill) {
			flipKeepingTimes(t, filepath.Join(dist, s.TarGz.Path))
		}, 1},
		{"archive replaced by an old copy", func(t *testing.T, dist string, s Skill) {
			// A file renamed over the archive: the folder's times change.
			p := filepath.Join(dist, s.Zip.Path)
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			tmp := filepath.Join(filepath.Dir(dist), "old.zip") // on the same file system
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)/2] ^= 0x20
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(tmp, info.ModTime(), info.ModTime()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"file added to a served folder", func(t *testing.T, dist string, s Skill) {
			os.WriteFile(filepath.Join(dist, ".well-known/agent-skills", s.Name, "extra.md"), []byte("x"), 0o644)
		}, 5},
		{"legacy file", func(t *testing.T, dist string, s Skill) {
			p := filepath.Join(dist, ".well-known/skills", s.Name, "SKILL.md")
			os.Remove(p) // break the hard link, then change the copy
			os.WriteFile(p, []byte("tampered"), 0o644)
		}, 0},
		{"legacy file, same size", func(t *testing.T, dist string, s Skill) {
			p := filepath.Join(dist, ".well-known/skills", s.Name, "SKILL.md")
			data, _ := os.ReadFile(p)
			os.Remove(p) // a copy of its own, no longer the served file's inode
			data[len(data)/2] ^= 0x20
			os.WriteFile(p, data, 0o644)
		}, 0},
		{"index", func(t *testing.T, dist string, s Skill) { flip(t, filepath.Join(dist, "mcp", "skills.json")) }, 0},
		{"catalog", func(t *testing.T, dist string, s Skill) { flip(t, filepath.Join(dist, "index.html")) }, 0},
		{"build record", func(t *testing.T, dist string, s Skill) {
			os.WriteFile(filepath.Join(dist, ".skillpack", "build.json"), []byte("{not json"), 0o644)
		}, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, dist, first := builtExamples(t, Options{})
			c.damage(t, dist, first.Skills[1])
			res, err := Run([]string{src}, Options{Out: dist, Inventory: true})
			if err != nil {
				// A damaged record makes the folder's files unknown: refusing
				// without --force is right, and --force must then work.
				t.Logf("refused: %v", err)
				res = mustBuild(t, []string{src}, Options{Out: dist, Force: true})
			}
			if res.UpToDate {
				t.Error("a damaged bundle was reported up to date")
			}
			if res.Packed != c.repack {
				t.Errorf("packed %d skills, want %d", res.Packed, c.repack)
			}
			sameTree(t, "rebuilt over a damaged bundle", freshTree(t, src, Options{}), snapshot(t, dist), false)
			noStaging(t, filepath.Dir(dist))
		})
	}
}

// flip changes a byte of the file at p, keeping its size.
func flip(t *testing.T, p string) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x20
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// flipKeepingTimes flips a byte of the file at p a clock tick later, then
// sets its modification time back.
func flipKeepingTimes(t *testing.T, p string) {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // past a coarse clock tick
	flip(t, p)
	if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
}

func TestDryRun(t *testing.T) {
	src := copyExamples(t)
	out := filepath.Join(t.TempDir(), "dist")
	res := mustBuild(t, []string{src}, Options{Out: out, DryRun: true})
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a dry run made %s (%v)", out, err)
	}
	noStaging(t, filepath.Dir(out))
	real := mustBuild(t, []string{src}, Options{Out: out})
	if !res.DryRun || !reflect.DeepEqual(res.Artifacts, real.Artifacts) || !reflect.DeepEqual(res.Skills, real.Skills) {
		t.Error("a dry run reports other artifacts than the build writes")
	}

	// Over an existing bundle, with a change pending: nothing moves.
	before := snapshot(t, out)
	appendTo(t, filepath.Join(src, "release-notes", "SKILL.md"), "\nMore.\n")
	res = mustBuild(t, []string{src}, Options{Out: out, DryRun: true})
	sameTree(t, "after a dry run", before, snapshot(t, out), true)
	noStaging(t, filepath.Dir(out))
	if res.Packed != 1 || res.Reused != 4 {
		t.Errorf("dry run: packed %d, reused %d; want 1, 4", res.Packed, res.Reused)
	}
}

// Without Options.Inventory a build writes the same bundle and reports
// its counts, but lists no skill or artifact: the lists grow with the
// tree, and the build must not.
func TestWithoutInventory(t *testing.T) {
	src, dist, full := builtExamples(t, Options{})
	lean := filepath.Join(t.TempDir(), "dist")
	res, err := Run([]string{src}, Options{Out: lean})
	if err != nil {
		t.Fatal(err)
	}
	if res.Skills != nil || res.Artifacts != nil {
		t.Errorf("lean build lists %d skills and %d artifacts, want none", len(res.Skills), len(res.Artifacts))
	}
	if res.Files != len(full.Artifacts) || res.Files != full.Files || res.Packed != 5 {
		t.Errorf("lean build: %d files, %d packed; the full one listed %d artifacts and counted %d files", res.Files, res.Packed, len(full.Artifacts), full.Files)
	}
	sameTree(t, "lean build against a full one", snapshot(t, dist), snapshot(t, lean), false)

	res, err = Run([]string{src}, Options{Out: lean})
	if err != nil || !res.UpToDate || res.Files != full.Files || res.Artifacts != nil {
		t.Errorf("lean no-op: err %v, up to date %v, %d files, %d artifacts", err, res.UpToDate, res.Files, len(res.Artifacts))
	}
}

// TestRecordStampedLast checks what a no-op rebuild relies on to trust
// the previous bundle without reading it: every file and folder of the
// bundle is stamped strictly before the record, even when the build
// writes them all within one tick of the kernel's clock.
func TestRecordStampedLast(t *testing.T) {
	for i := range 3 {
		_, dist, _ := builtExamples(t, Options{})
		rec, err := os.Lstat(filepath.Join(dist, filepath.FromSlash(layout.BuildRecord)))
		if err != nil {
			t.Fatal(err)
		}
		rm, rc, ok := reuse.Times(rec)
		if !ok {
			t.Skip("no change times on this system")
		}
		late := 0
		filepath.WalkDir(dist, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dist, p)
			if rel == "." || rel == filepath.Dir(filepath.FromSlash(layout.BuildRecord)) || rel == filepath.FromSlash(layout.BuildRecord) {
				return nil // listed by the next build, not trusted by time
			}
			info, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			m, c, _ := reuse.Times(info)
			if !m.Before(rm) || !m.Before(rc) || !c.Before(rm) || !c.Before(rc) {
				if late++; late <= 3 {
					t.Errorf("build %d: %s is stamped %v (changed %v), not before the record's %v (changed %v)", i, rel, m, c, rm, rc)
				}
			}
			return nil
		})
	}
}

// TestRecordStampedAfterRemoval rebuilds after an edit, which removes the
// previous bundle and so changes the times of every file the two bundles
// shared (their link counts drop). The record must still be stamped after
// every file of the bundle, or the next build would trust none of them
// and hash the whole bundle again.
func TestRecordStampedAfterRemoval(t *testing.T) {
	src, dist, _ := builtExamples(t, Options{})
	appendTo(t, filepath.Join(src, "csv-profiler", "SKILL.md"), "\nOne more line.\n")
	mustBuild(t, []string{src}, Options{Out: dist})
	stampedLast(t, dist)
}

// stampedLast fails unless every file of the bundle in dist was modified
// and changed before its record's stamp: otherwise the next build trusts
// none of them and hashes them all.
func stampedLast(t *testing.T, dist string) {
	t.Helper()
	recInfo, err := os.Lstat(filepath.Join(dist, filepath.FromSlash(layout.BuildRecord)))
	if err != nil {
		t.Fatal(err)
	}
	rm, rc, ok := reuse.Times(recInfo)
	if !ok {
		t.Skip("no change times on this system")
	}
	recorded := rm
	if rc.Before(rm) {
		recorded = rc
	}
	n := 0
	filepath.WalkDir(dist, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == filepath.Join(dist, filepath.FromSlash(layout.BuildRecord)) {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if m, c, _ := reuse.Times(info); !m.Before(recorded) || !c.Before(recorded) {
			n++
			if n <= 3 {
				t.Errorf("%s: modified %v, changed %v; the record is stamped %v", p, m, c, recorded)
			}
		}
		return nil
	})
}
