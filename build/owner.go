package build

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/skillpack/skillpack/internal/outlock"
)

// A staging folder carries who made it, so that a later run can tell the
// litter of a killed build from the work of a build still running, and
// from anything it did not make. Beside the folder
// .<out>.skillpack-<random> lies <folder>.owner, made before the folder and
// removed last. The build holds a flock on it for as long as it runs,
// which the kernel lets go of however the process ends; the file also
// says, for people, "skillpack staging", the pid and the host.
//
// So a kill leaves at most one staging folder (and its ".old" twin from a
// swap), always with its owner file, and sweepStale removes them on the
// next run once it can take the lock. A folder with no owner file is never
// touched. Where there is no flock, every owner counts as running.

const ownerSuffix = ".owner"

// stagePrefix is the start of the name of out's staging folders.
func stagePrefix(out string) string { return "." + filepath.Base(out) + ".skillpack-" }

// makeOwned makes a new staging folder in parent for out, its owner file
// first and locked, so that no moment leaves a folder without one. The
// owner file stays open, and locked, until the caller closes it.
func makeOwned(parent, out string) (dir string, owner *os.File, err error) {
	host, _ := os.Hostname()
	for range 100 {
		dir := filepath.Join(parent, stagePrefix(out)+strconv.FormatUint(rand.Uint64()%1e10, 10))
		f, err := os.OpenFile(dir+ownerSuffix, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		// A sweep may have taken the file for a dead build's in the moment
		// before the lock, and removed it: then start again.
		if err := outlock.Flock(f, false); err != nil || !outlock.SamePath(f, dir+ownerSuffix) {
			f.Close()
			continue
		}
		_, err = fmt.Fprintf(f, "skillpack staging\npid %d\nhost %s\n", os.Getpid(), host)
		if err == nil {
			err = os.Mkdir(dir, 0o755)
		}
		if err != nil {
			outlock.RemoveHeld(f, dir+ownerSuffix)
			return "", nil, err
		}
		return dir, f, nil
	}
	return "", nil, fmt.Errorf("cannot find a free name for a staging folder beside %s", out)
}

// sweepStale removes the staging folders of out that killed builds left,
// and returns them. What it cannot remove it leaves, for the output check.
func sweepStale(out string) []string {
	parent := filepath.Dir(out)
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, stagePrefix(out)) || !strings.HasSuffix(name, ownerSuffix) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(parent, name)
		dir := strings.TrimSuffix(p, ownerSuffix)
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		// Taken, the lock says the build that held it is gone; and while
		// this holds it, no build can start under this name.
		if outlock.Flock(f, true) == nil && outlock.SamePath(f, p) && os.RemoveAll(dir) == nil && os.RemoveAll(dir+".old") == nil {
			outlock.RemoveHeld(f, p)
			removed = append(removed, dir)
			continue
		}
		f.Close()
	}
	return removed
}
