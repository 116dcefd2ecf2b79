package build

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
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
		return nil, errors.New("no output folder given")
	}
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.GOMAXPROCS(0)
	}
	b := &builder{ctx: ctx, opts: opts, roots: roots, res: &Result{DryRun: opts.DryRun}}
	return b.res, b.run()
}

// The pipeline, in order (see steps). Each step is a method in the file
// of its name; each reads what the steps before it left in the builder
// and says, when it has nothing to do, why:
//
//	discover      find the skills under the roots                 discover.go
//	check output  refuse an output folder that would destroy
//	              something; read the previous build's record     checkoutput.go
//	llms.txt      read and check the site's llms.txt to merge     llmstxt.go
//	pack          per skill: read, collect, hash, lint, then pack
//	              or reuse its archives (a worker a skill)        pack.go
//	lint          the checks across skills; report every
//	              finding; leave out or refuse invalid skills     lint.go
//	guard         compare with the bundle published last: no
//	              published version may change or go down         guard.go
//	index         lay out the bundle and render its documents,
//	              and decide whether it is up to date             index.go
//	versions      stage the files of every published version      versions.go
//	write         stage every file of the bundle                  write.go
//	sign          sign the staged artifacts                       sign.go
//	swap          write the record last, swap the staged
//	              folder in                                       swap.go
//
// Nothing is written outside the staging folder before swap, and what
// can be reused from the previous bundle is decided in one place, package
// build/internal/reuse, with the three proofs its comment states.

// step is one named part of the pipeline; the name prefixes its errors.
// run returns why it did nothing ("" when it did its work).
type step struct {
	name string
	run  func() (skipped string, err error)
}

// steps is the pipeline in stages: the steps of a stage run at once.
// Discovery walks the input and the output check reads the previous
// bundle: on a no-op rebuild each is a good part of the time, and they
// share nothing (nor does reading llms.txt, which is quick).
func (b *builder) steps() [][]step {
	return [][]step{
		{{"discover", b.discover}, {"check output", b.checkOutput}, {"llms.txt", b.llmsTxt}},
		{{"pack", b.pack}},
		{{"lint", b.lint}},
		{{"guard", b.guard}},
		{{"index", b.index}},
		{{"versions", b.versions}},
		{{"write", b.write}},
		{{"sign", b.sign}},
		{{"swap", b.swap}},
	}
}

// run runs the pipeline; it returns the first error in step order,
// prefixed with its step's name unless it is about the skills.
func (b *builder) run() error {
	defer func() {
		if b.unlock != nil {
			b.unlock() // after cleanup, which discards the staging folder
		}
	}()
	defer b.cleanup()
	// Before discovery, which would read a killed build's copies of the
	// skills when the output is inside the input.
	b.sweep()
	for _, stage := range b.steps() {
		if err := b.interrupted(); err != nil {
			return fmt.Errorf("%s: %w", stage[0].name, err)
		}
		errs := make([]error, len(stage))
		skipped := make([]string, len(stage))
		var wg sync.WaitGroup
		for i, s := range stage {
			wg.Go(func() { skipped[i], errs[i] = s.run() })
		}
		wg.Wait()
		for i, err := range errs {
			var le *LintError
			var ce *ClashError
			var ne *NoSkillsError
			switch {
			case err == nil:
				if skipped[i] != "" && b.opts.Verbose {
					b.logf("• %s: skipped, %s", stage[i].name, skipped[i])
				}
			case errors.As(err, &le), errors.As(err, &ce), errors.As(err, &ne), errors.As(err, new(*VersionError)), errors.As(err, new(*PreviousError)):
				return err // about the skills, not a step
			case errors.As(err, new(*packError)):
				return err // named for its own step
			default:
				return fmt.Errorf("%s: %w", stage[i].name, err)
			}
		}
	}
	return nil
}

func (b *builder) logf(format string, args ...any) {
	if b.opts.Log != nil {
		fmt.Fprintf(b.opts.Log, format+"\n", args...)
	}
}

// cleanup removes what the build made and did not swap in: its scratch
// files and, after a failure, its staging folder.
func (b *builder) cleanup() {
	b.sums.close()
	b.prev.Close()
	if b.prevOut != nil {
		b.prevOut.Close()
	}
	b.st.discard()
}

// sweep removes the staging folders killed builds of this output left
// (see owner.go), and says so.
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
	if b.ctx == nil || b.ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("interrupted (%w); the output folder is as it was", b.ctx.Err())
}
