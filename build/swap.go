package build

import (
	"fmt"
	"os"
	"time"

	"github.com/skillpack/skillpack/build/internal/reuse"
	"github.com/skillpack/skillpack/layout"
)

// swapIn replaces the output folder with the staging folder. Where the
// kernel can exchange two folders atomically (Linux renameat2), readers see
// the old bundle or the new one and never a moment without either;
// elsewhere the old folder is moved aside first and moved back if the
// second rename fails, so the previous bundle survives any failure.
func (b *builder) swapIn() error {
	if _, err := os.Lstat(b.out); err != nil {
		if err := os.Rename(b.stage, b.out); err != nil {
			return fmt.Errorf("moving the new bundle into place: %w", err)
		}
		b.stage = ""
		return nil
	}
	old := b.stage
	if err := exchange(b.stage, b.out); err != nil {
		old = b.stage + ".old"
		if err := os.Rename(b.out, old); err != nil {
			return fmt.Errorf("moving the previous bundle aside: %w", err)
		}
		if err := os.Rename(b.stage, b.out); err != nil {
			os.Rename(old, b.out)
			return fmt.Errorf("moving the new bundle into place: %w", err)
		}
	}
	b.stage = ""
	// The new bundle is in place; failing to delete the old one is worth
	// a warning, not a failed build.
	if err := os.RemoveAll(old); err != nil {
		b.logf("  warning: could not remove the previous bundle at %s: %v", old, err)
	}
	return nil
}

// swap is the last step: it writes the build record, the build's last
// write and the proof of everything before it (see reuse.go), stamps it
// after every other file, and swaps the staged bundle in.
func (b *builder) swap() (string, error) {
	switch {
	case b.res.UpToDate:
		return "the bundle is up to date", nil
	case b.opts.DryRun:
		return "dry run", nil
	}
	written := time.Now() // every other file of the bundle is stamped no later
	if d, _, err := b.writeDoc(b.stagePath(layout.BuildRecord), b.writeRecord); err != nil {
		return "", err
	} else if d != b.recDigest {
		return "", fmt.Errorf("%s: the record changed between two renderings", layout.BuildRecord)
	}
	if err := reuse.StampAfter(b.stagePath(layout.BuildRecord), written); err != nil {
		return "", err
	}
	return "", b.swapIn()
}
