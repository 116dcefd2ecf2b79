package verify

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// Objects verifies the bundle that st holds. The error is non-nil when
// the store cannot be read at all (Check's error) or its discovery v0.2.0
// index cannot be read; everything else is a Problem.
func Objects(ctx context.Context, st bundle.Store, o Options) (*Report, error) {
	o = o.withDefaults()
	return run(ctx, bundle.FromStore(st, o.Timeout), o)
}

// stored is the store the check reads, or nil for a folder or a URL.
func (c *checker) stored() bundle.Store {
	if s, ok := c.src.(*bundle.Stored); ok {
		return s.Store()
	}
	return nil
}

// prepare lets a store read what it needs and report its own problems
// before the checks begin. Its error ends the check, unless the check's
// deadline caused it: then v2 says why the index cannot be read either.
func (c *checker) prepare() error {
	st := c.stored()
	if st == nil {
		return nil
	}
	var mu sync.Mutex
	err := st.Check(c.ctx, func(path, message string) {
		mu.Lock()
		defer mu.Unlock()
		c.problem(path, "%s", message)
	})
	if err != nil && c.ctx.Err() == nil {
		// Some of a target's errors name it already (publish prints them
		// as they are: "s3://bucket: no such bucket at …").
		if scheme, _, _ := strings.Cut(st.String(), "://"); strings.HasPrefix(err.Error(), scheme+"://") {
			return err
		}
		return fmt.Errorf("%s: %w", st, err)
	}
	return nil
}

// heldFiles is what a store that holds one bundle holds (nil for any other
// store), after reporting each file the build record does not list.
func (c *checker) heldFiles(listed map[string]bool) map[string]bool {
	st := c.stored()
	if st == nil {
		return nil
	}
	files, ok := st.Files()
	if !ok {
		return nil
	}
	present := map[string]bool{}
	for _, f := range slices.Sorted(slices.Values(files)) {
		if !listed[f] && !present[f] {
			c.problem(f, "is in %s but not in the build record (%s): it is not part of this bundle", st, layout.BuildRecord)
		}
		present[f] = true
	}
	return present
}

// lookFor reads each file the build record lists that no check has read
// (in a store that cannot list its files), and reports those missing; at
// most Options.MaxEntries, as a hostile record could list millions.
func (c *checker) lookFor(listed map[string]bool) {
	const p = layout.BuildRecord
	var todo []string
	for _, f := range slices.Sorted(maps.Keys(listed)) {
		if _, ok := c.sums[f]; !ok && layout.CheckPath(f) == nil {
			todo = append(todo, f)
		}
	}
	if len(todo) > c.o.MaxEntries {
		c.problem(p, "lists %d files that no index names; only the first %d were looked for", len(todo), c.o.MaxEntries)
		todo = todo[:c.o.MaxEntries]
	}
	c.prefetch(todo)
	for _, f := range slices.Sorted(maps.Keys(listed)) {
		s := c.sums[f]
		switch {
		case s == nil: // beyond the files looked for
		case errors.Is(s.err, bundle.ErrNotFound) && !s.reported:
			s.reported = true
			c.problem(f, "is listed in the build record (%s) but missing", p)
		default:
			c.failed(f, p)
		}
	}
}

// named is loc as a message names it: under the URL or the store.
func (c *checker) named(loc string) string {
	if c.stored() != nil {
		return c.src.String() + "/" + loc
	}
	return c.src.String() + loc
}

// holds reports whether the source keeps the file at loc (a folder and a
// URL keep everything).
func (c *checker) holds(loc string) bool {
	st := c.stored()
	return st == nil || st.Holds(loc)
}

// checkUnheld checks what the documents say of the skills' files a store
// does not hold (a registry keeps a skill's .tar.gz, not the served
// copies) against the entries of the skill's archives that were read.
func (c *checker) checkUnheld() {
	byArchive := map[*archiveRef]map[string]pack.Member{}
	for _, e := range c.unheld {
		p, ok := layout.ParsePath(e.loc)
		if !ok || p.Kind != layout.KindFile || p.Legacy || c.skills[p.Skill] == nil {
			continue
		}
		for _, a := range c.skills[p.Skill].archives {
			if a.unpacked == nil || a.unpacked.stopped {
				continue
			}
			if byArchive[a] == nil {
				byArchive[a] = a.unpacked.byPath()
			}
			en, ok := byArchive[a][p.File]
			if !ok {
				continue // compareArchive says the archive lacks it
			}
			switch d := layout.SumDigest(en.Sum[:]); {
			case d != e.digest:
				c.problem(e.loc, "is not held by %s; entry %q of %s has digest %s, but %s says %s", c.src, p.File, a.loc, d, e.from, e.digest)
			case e.size >= 0 && en.Size != e.size:
				c.problem(e.loc, "is not held by %s; entry %q of %s is %d bytes, but %s says %d", c.src, p.File, a.loc, en.Size, e.from, e.size)
			}
		}
	}
	c.unheld = nil
}
