package build

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/skillpack/skillpack/lint"
)

// Run builds the skills found at or below roots into opts.Out.
func Run(roots []string, opts Options) (*Result, error) {
	return RunContext(context.Background(), roots, opts)
}

// RunContext is Run, stopped when ctx is done (an interrupt): between two
// steps, two skills, two files written or two artifacts signed. The
// staging folder goes with it, and the output is left as it was.
func RunContext(ctx context.Context, roots []string, opts Options) (*Result, error) {
	if opts.Out == "" {
		return nil, &OutputError{errors.New("no output folder given; name one with -o, such as -o dist")}
	}
	b := newBuilder(ctx, roots, opts)
	_, err := b.run()
	return b.res, err
}

func newBuilder(ctx context.Context, roots []string, opts Options) *builder {
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.GOMAXPROCS(0)
	}
	lo := opts.Lint
	if lo.Base == "" {
		lo.Base, _ = os.Getwd()
	}
	lo.Jobs = 1
	lo.Roots = roots
	lo.Publishing = true
	lo.Out = opts.Out
	lo.All, lo.Ignore, lo.Verbose = opts.All, opts.Ignore, opts.Verbose
	out, _ := filepath.Abs(opts.Out)
	lo.PluginFiles = lint.PluginFiles(written(out))
	return &builder{ctx: cmp.Or[context.Context](ctx, context.Background()), opts: opts, roots: roots,
		res: &Result{DryRun: opts.DryRun}, lintOpts: lo}
}

// Test seams, set only by this package's tests (none runs in parallel).
var (
	onCollected  = func(skill string) {}                    // a skill's files are collected, before they are read
	onRead       = func(path string) {}                     // an input file is opened to be read
	onLint       = func() {}                                // lint's per-skill rules run (the record did not know the verdict)
	onPackPlugin = func(name string) {}                     // a plugin's archives are packed (the record's did not hold its files)
	wrapServed   = func(w io.Writer) io.Writer { return w } // wraps the served copy of a file as it is packed
)

// run runs the steps in order, each in the file of its name, each taking
// what the one before it returned: discover, check output and llms.txt
// (at once: on a no-op rebuild each is a good part of the time) →
// discovered → pack → lint → packed → guard, index → planned → versions,
// write → staged → sign, swap. Nothing is written outside the staging
// folder before swap.
func (b *builder) run() (*staged, error) {
	// Before discovery, which would read a killed build's copies of the
	// skills when the output is inside the input.
	b.sweep()
	d := &discovered{}
	var skipped [3]string
	var errs [3]error
	if errs[0] = b.interrupted(); errs[0] == nil {
		var wg sync.WaitGroup
		wg.Go(func() { d.discovery, skipped[0], errs[0] = b.discover() })
		wg.Go(func() { d.out, skipped[1], errs[1] = b.checkOutput() })
		wg.Go(func() { d.llms, skipped[2], errs[2] = b.llmsTxt() })
		wg.Wait()
	}
	defer d.out.close() // after the staging folder is discarded (below)
	for i, name := range []string{"discover", "check output", "llms.txt"} {
		if err := b.report(name, skipped[i], errs[i]); err != nil {
			return nil, err
		}
	}
	defer b.st.discard() // unless swap made it the output
	p, err := do(b, "pack", func() (*packed, string, error) { return b.pack(d) })
	defer p.close()
	if err != nil {
		return nil, err
	}
	if p, err = do(b, "lint", func() (*packed, string, error) { return b.lint(p) }); err != nil {
		return nil, err
	}
	prev, err := do(b, "guard", func() (*previous, string, error) { return b.guard(p) })
	defer prev.close()
	if err != nil {
		return nil, err
	}
	pl, err := do(b, "index", func() (*planned, string, error) { return b.index(p, prev) })
	if err != nil {
		return nil, err
	}
	if err := b.step("versions", func() (string, error) { return b.versions(pl) }); err != nil {
		return nil, err
	}
	s, err := do(b, "write", func() (*staged, string, error) { return b.write(pl) })
	if err != nil {
		return nil, err
	}
	if err := b.step("sign", func() (string, error) { return b.sign(s) }); err != nil {
		return nil, err
	}
	return s, b.step("swap", func() (string, error) { return b.swap(s) })
}

// do runs one named step, unless the build was interrupted, and hands on
// its result. fn returns why it did nothing ("" when it did its work).
func do[T any](b *builder, name string, fn func() (T, string, error)) (v T, err error) {
	skipped := ""
	if err = b.interrupted(); err == nil {
		v, skipped, err = fn()
	}
	return v, b.report(name, skipped, err)
}

// step is do for a step that hands on nothing.
func (b *builder) step(name string, fn func() (skipped string, err error)) error {
	_, err := do(b, name, func() (struct{}, string, error) {
		skipped, err := fn()
		return struct{}{}, skipped, err
	})
	return err
}

// report says why a step skipped, with -v, and returns its error,
// prefixed with the step's name unless it is about the skills.
func (b *builder) report(name, skipped string, err error) error {
	switch {
	case err == nil:
		if skipped != "" && b.opts.Verbose {
			b.logf("• %s: skipped, %s", name, skipped)
		}
		return nil
	case errors.As(err, new(*LintError)), errors.As(err, new(*ClashError)), errors.As(err, new(*NoSkillsError)),
		errors.As(err, new(*VersionError)), errors.As(err, new(*PreviousError)):
		return err // about the skills, not a step
	case errors.As(err, new(*packError)):
		return err // named for its own step
	}
	return fmt.Errorf("%s: %w", name, err)
}

func (b *builder) logf(format string, args ...any) {
	if b.opts.Log != nil {
		fmt.Fprintf(b.opts.Log, format+"\n", args...)
	}
}

// sweep removes the staging folders killed builds of this output left, and says so.
func (b *builder) sweep() {
	out, err := filepath.Abs(b.opts.Out)
	if err != nil {
		return
	}
	for _, p := range sweepStale(out) {
		b.logf("  removed %s, left by a build that was killed", p)
	}
}

// interrupted says, once the build's context is done, that the build
// stopped and left the output as it was.
func (b *builder) interrupted() error {
	if b.ctx.Err() == nil {
		return nil
	}
	return errors.New("interrupted; the output folder is as it was") // the command knows its signal
}
