package build

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillpack/skillpack/internal/outlock"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/skill"
)

// stagingLeft lists the staging folders and owner files beside out.
func stagingLeft(t *testing.T, out string) (dirs, owners []string) {
	t.Helper()
	ents, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), stagePrefix(out)) {
			if strings.HasSuffix(e.Name(), ownerSuffix) {
				owners = append(owners, e.Name())
			} else {
				dirs = append(dirs, e.Name())
			}
		}
	}
	return dirs, owners
}

// deadPID is the id of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// The next build removes what killed builds of its output left, and
// nothing else: not a running build's folder, not another host's, not a
// folder nothing marks as skillpack's.
func TestSweepStale(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no way to tell a dead owner here; staging folders are left")
	}
	root := t.TempDir()
	out := filepath.Join(root, "dist")
	host, _ := os.Hostname()
	stale := func(name string, pid int, h string) string {
		dir := filepath.Join(root, stagePrefix(out)+name)
		copyTree(t, examples, filepath.Join(dir, ".well-known", "agent-skills"), copyOpts{})
		os.WriteFile(dir+ownerSuffix, []byte("skillpack staging\npid "+strconv.Itoa(pid)+"\nhost "+h+"\n"), 0o644)
		return dir
	}
	dead := stale("dead", deadPID(t), host)
	os.MkdirAll(dead+".old/x", 0o755) // the previous bundle, moved aside by a swap without renameat2
	running := stale("running", os.Getpid(), host)
	held, err := os.Open(running + ownerSuffix)
	if err != nil || outlock.Flock(held, false) != nil {
		t.Fatal("cannot lock the running build's owner file", err)
	}
	defer held.Close()
	unmarked := filepath.Join(root, stagePrefix(out)+"unmarked")
	os.MkdirAll(filepath.Join(unmarked, "mine"), 0o755)
	emptyOld := filepath.Join(root, stagePrefix(out)+"empty-old")
	os.Mkdir(emptyOld, 0o755)
	long := time.Now().Add(-time.Hour)
	os.Chtimes(emptyOld, long, long)
	// Killed between writing its owner file and making its folder.
	orphanOwner := filepath.Join(root, stagePrefix(out)+"orphan") + ownerSuffix
	os.WriteFile(orphanOwner, []byte("skillpack staging\npid "+strconv.Itoa(deadPID(t))+"\nhost "+host+"\n"), 0o644)
	other := filepath.Join(root, ".other.skillpack-dead") // another output's
	os.Mkdir(other, 0o755)
	os.Chtimes(other, long, long)

	var log bytes.Buffer
	mustBuild(t, []string{examples}, Options{Out: out, Log: &log})
	for _, p := range []string{dead, dead + ".old", dead + ownerSuffix, orphanOwner} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was left", p)
		}
	}
	if !strings.Contains(log.String(), "removed "+dead+", left by a build that was killed") {
		t.Errorf("the log does not say what was removed:\n%s", log.String())
	}
	for _, p := range []string{running, running + ownerSuffix, filepath.Join(unmarked, "mine"), emptyOld, other} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	// An empty owner file (a kill between making it and writing it) is as
	// stale as any other once its lock is free.
	torn := filepath.Join(root, stagePrefix(out)+"torn")
	os.WriteFile(torn+ownerSuffix, nil, 0o644)
	mustBuild(t, []string{examples}, Options{Out: out})
	if _, err := os.Lstat(torn + ownerSuffix); err == nil {
		t.Error("an empty owner file was left")
	}
}

// TestKilledBuilds kills real builds (this test binary, re-run as a
// build) at random moments: each kill leaves the output as it was or
// wholly new, and at most one staging folder, which the next build
// removes.
func TestKilledBuilds(t *testing.T) {
	if os.Getenv("SKILLPACK_KILLED_BUILD") != "" {
		// The child: one build or signing, until it is killed.
		if os.Getenv("SKILLPACK_KILLED_SIGN") != "" {
			// A signer as slow as a real one, so that kills land mid-way.
			slow := func(data []byte) ([]byte, error) { time.Sleep(5 * time.Millisecond); return fakeSign(data) }
			if _, err := Sign(os.Getenv("SKILLPACK_KILLED_OUT"), slow, nil, nil); err != nil {
				t.Fatal(err)
			}
			return
		}
		// A build as slow as a large one, so that kills land mid-way on
		// any machine: each line of progress and of the log, all written
		// while the staging folder exists, takes 10 ms.
		slow := slowWriter{10 * time.Millisecond}
		if _, err := Run([]string{os.Getenv("SKILLPACK_KILLED_SRC")}, Options{Out: os.Getenv("SKILLPACK_KILLED_OUT"), Jobs: 1, Log: slow, Progress: slow}); err != nil {
			t.Fatal(err)
		}
		return
	}
	if runtime.GOOS == "windows" {
		t.Skip("no kill -9 here")
	}
	if testing.Short() {
		t.Skip("kills 12 builds")
	}
	src := copyExamples(t)
	out := filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{src}, Options{Out: out})
	index := func() string {
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(layout.V2Index)))
		if err != nil {
			t.Fatalf("the output has no index after a kill: %v", err)
		}
		return string(data)
	}
	tmp := t.TempDir() // the children's TMPDIR, which the scratch file must not outlive
	child := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledBuilds$")
		cmd.Env = append(os.Environ(), "SKILLPACK_KILLED_BUILD=1", "SKILLPACK_KILLED_SRC="+src, "SKILLPACK_KILLED_OUT="+out, "TMPDIR="+tmp)
		return cmd
	}
	// Kills are spread over a little more than the time a whole build
	// takes on this machine, one in each twelfth of it, so that they land
	// before, in and after the staging however fast the machine is.
	appendTo(t, filepath.Join(src, "csv-profiler", "assets", "report-template.md"), "\ncalibration\n")
	start := time.Now()
	if out, err := child().CombinedOutput(); err != nil {
		t.Fatalf("a build to time: %v\n%s", err, out)
	}
	whole := time.Since(start)
	rng := rand.New(rand.NewPCG(1, 2))
	littered, finished := 0, 0
	for i := range 12 {
		// Each build has something to do: a skill changes every time.
		appendTo(t, filepath.Join(src, "csv-profiler", "assets", "report-template.md"), "\nline "+strconv.Itoa(i)+"\n")
		before := index()
		cmd := child()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration((float64(i) + rng.Float64()) / 12 * 1.2 * float64(whole)))
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if after := index(); after != before {
			finished++
			// The build finished before the kill: the new bundle, whole.
			mustBuild(t, []string{src}, Options{Out: out}) // and it is up to date
		}
		dirs, owners := stagingLeft(t, out)
		if len(dirs) > 1 || len(owners) > 1 {
			t.Fatalf("kill %d left %v and %v", i, dirs, owners)
		}
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Fatalf("kill %d left %v in the temporary folder", i, left)
		}
		if len(dirs)+len(owners) > 0 {
			littered++
		}
	}
	// Killed at random, some builds must have died mid-way, or the test
	// checked nothing.
	if littered == 0 {
		t.Error("no kill left a staging folder: the kills came too late to test anything")
	}
	t.Logf("of 12 kills over a build of %v, %d left a staging folder and %d came after the build finished", whole, littered, finished)
	res := mustBuild(t, []string{src}, Options{Out: out})
	noStaging(t, filepath.Dir(out))
	if res.Files == 0 {
		t.Error("the build after the kills wrote nothing")
	}
	sameTree(t, "after the kills against a fresh build", freshTree(t, src, Options{}), snapshot(t, out), false)
}

// TestKilledSigning kills `skillpack sign` at random moments: the bundle
// is left unsigned or wholly signed, every file it holds is in its record,
// and the next build or signing removes the staging folder.
func TestKilledSigning(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no kill -9 here")
	}
	if testing.Short() {
		t.Skip("kills 12 signings")
	}
	out := filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{examples}, Options{Out: out})
	rng := rand.New(rand.NewPCG(3, 4))
	signed, unsigned := 0, 0
	for i := range 12 {
		mustBuild(t, []string{examples}, Options{Out: out, NoReuse: i%2 == 0}) // unsigned again
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledBuilds$")
		cmd.Env = append(os.Environ(), "SKILLPACK_KILLED_BUILD=1", "SKILLPACK_KILLED_SIGN=1", "SKILLPACK_KILLED_OUT="+out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		sigs := 0
		for p := range snapshotDir(t, out) {
			if strings.HasSuffix(p, layout.SignatureSuffix) {
				sigs++
			}
		}
		switch sigs {
		case 0:
			unsigned++
		case 14:
			signed++
		default:
			t.Fatalf("kill %d left %d signatures: half signed", i, sigs)
		}
		rec, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(layout.BuildRecord)))
		if err != nil {
			t.Fatal(err)
		}
		r, err := layout.DecodeRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Files) != len(snapshotDir(t, out)) {
			t.Fatalf("kill %d: the record lists %d files, the folder holds %d", i, len(r.Files), len(snapshotDir(t, out)))
		}
		if dirs, owners := stagingLeft(t, out); len(dirs) > 1 || len(owners) > 1 {
			t.Fatalf("kill %d left %v and %v", i, dirs, owners)
		}
	}
	t.Logf("of 12 kills, %d left the bundle unsigned and %d signed", unsigned, signed)
	mustBuild(t, []string{examples}, Options{Out: out})
	noStaging(t, filepath.Dir(out))
}

// An interrupted build (its context cancelled, as an interrupt does)
// stops, leaves the output as it was and no staging folder, and says so.
func TestInterrupted(t *testing.T) {
	src := copyExamples(t)
	out := filepath.Join(t.TempDir(), "dist")
	mustBuild(t, []string{src}, Options{Out: out})
	appendTo(t, filepath.Join(src, "csv-profiler", "assets", "report-template.md"), "\nmore\n")
	before := snapshot(t, out)
	for _, at := range []string{"pack", "sign"} {
		ctx, cancel := context.WithCancel(context.Background())
		o := Options{Out: out, Jobs: 1}
		switch at {
		case "pack":
			withSeam(t, &onCollected, func(string) { cancel() })
		case "sign":
			n := 0
			o.Sign = func(data []byte) ([]byte, error) {
				if n++; n == 3 {
					cancel()
				}
				return fakeSign(data)
			}
		}
		_, err := RunContext(ctx, []string{src}, o)
		if err == nil || !strings.Contains(err.Error(), "interrupted") || !strings.HasPrefix(err.Error(), at+":") {
			t.Errorf("cancelled in %s: err = %v, want %q and interrupted", at, err, at+":")
		}
		sameTree(t, "the output after an interrupt in "+at, before, snapshot(t, out), true)
		noStaging(t, filepath.Dir(out))
		cancel()
	}
}

// slowWriter takes its time over every write, like a build of many more
// skills than the test's.
type slowWriter struct{ d time.Duration }

func (w slowWriter) Write(p []byte) (int, error) {
	time.Sleep(w.d)
	return len(p), nil
}

// skill.Built spells the names a build writes beside its output, for the
// readers that pass them over (a plugin's archives, serve --watch): the
// staging folder, its owner file, a bundle moved aside and the lock.
func TestBuiltNames(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	parent := filepath.Dir(out)
	for _, p := range []struct {
		name string
		dir  bool
	}{
		{stagePrefix(out) + "123", true},
		{stagePrefix(out) + "123" + ownerSuffix, false},
		{stagePrefix(out) + "123.old", true},
		{"." + filepath.Base(out) + outlock.Suffix, false},
	} {
		if !skill.Built(filepath.Join(parent, p.name), p.dir) {
			t.Errorf("skill.Built(%s) is false", p.name)
		}
	}
	if skill.Built(filepath.Join(parent, "dist-notes"), true) {
		t.Error("skill.Built takes any folder for a build's")
	}
}
