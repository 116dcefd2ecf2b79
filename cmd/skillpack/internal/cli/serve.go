package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/serve"
)

type serveOptions struct {
	BuildFlags // for --watch rebuilds: the lint flags and --no-reuse; shared with build and pack
	Dist       string
	Addr       string
	Stdio      bool
	Watch      string

	given func(flag string) bool // the flags on the command line
}

func newServeCmd(ios *IO, runF func(context.Context, *serveOptions) error) *cobra.Command {
	opts := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve DIST",
		Short: "Serve a built bundle over HTTP and MCP",
		Long: `Serve serves the bundle that 'skillpack build' wrote to DIST, unchanged: the
discovery indexes, skill files and archives over HTTP, and the same skills over
MCP (the io.modelcontextprotocol/skills extension) at /mcp on the same address,
or on stdin and stdout with --stdio.

Only the files the build recorded are served, each with the content type,
CORS and cache headers of a static host; there are no folder listings. Every
file is checked against its recorded digest once at startup, and a bundle
that was changed after its build is refused; a file changed while serving is
answered with an error, never with its bytes.

With --watch SKILLS, serve builds SKILLS into DIST first, as 'skillpack
build' would with skillpack.yaml's build section, then polls SKILLS every
second and rebuilds and serves the new bundle whenever a file changes. A
rebuild that fails leaves the last good bundle served. --no-reuse packs and
lints every skill afresh on each rebuild.

Serve stops on SIGINT or SIGTERM, letting running requests finish.`,
		Example: `  skillpack serve dist
  skillpack serve dist --addr :8080
  skillpack serve dist --watch skills
  skillpack serve dist --stdio            # as an MCP server launched by a host`,
		Args: oneArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dist = args[0]
			opts.given = cmd.Flags().Changed
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if runF != nil {
				return runF(ctx, opts)
			}
			return runServe(ctx, ios, opts)
		},
	}
	f := cmd.Flags()
	opts.LintOptions.AddFlags(f)
	opts.addNoReuse(f)
	f.StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "`address` to serve HTTP and MCP on")
	f.BoolVar(&opts.Stdio, "stdio", false, "serve MCP on stdin and stdout instead of HTTP")
	f.StringVar(&opts.Watch, "watch", "", "build the skills in `SKILLS` into DIST, and rebuild whenever they change")
	return cmd
}

func runServe(ctx context.Context, ios *IO, opts *serveOptions) error {
	if opts.Stdio && opts.given != nil && opts.given("addr") {
		return usageErr("--stdio serves MCP on stdin and stdout only; leave out --addr")
	}
	var watcher *serve.Watcher
	var rebuild func() error
	if opts.Watch != "" {
		var err error
		if rebuild, err = serveRebuild(ios, opts); err != nil {
			return err
		}
		// Snapshot before the first build, so that no edit made while it
		// runs goes unseen.
		watcher = serve.NewWatcher([]string{opts.Watch}, time.Second)
		if err := rebuild(); err != nil {
			return buildErr(err)
		}
	}
	b, err := serve.Open(opts.Dist)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	s := serve.New(b, serve.Options{Log: ios.Err})
	if watcher != nil {
		go s.Watch(ctx, watcher, rebuild)
	}
	if opts.Stdio {
		ios.Infof("skillpack: serving %s (%s) over MCP on stdin and stdout", opts.Dist, plural(b.Skills(), "skill"))
		if err := s.ServeStdio(ctx, ios.In, ios.Out); err != nil {
			return &exitError{code: ExitInternal, err: err}
		}
		return nil
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return usageErr("--addr: %w", err)
	}
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(ios.Err, "skillpack: serving %s (%s) at %s, MCP at %s%s\n", opts.Dist, plural(b.Skills(), "skill"), url, url, serve.MCPPath)
	if err := s.Serve(ctx, ln); err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	return nil
}

// rebuildOptions is the build --watch runs: build's, from the same
// resolver, into DIST.
func (o *serveOptions) rebuildOptions(ios *IO) (build.Options, error) {
	bo, err := o.resolveBundle(ios, o.given)
	if err != nil {
		return bo, err
	}
	bo.Out = o.Dist
	return bo, nil
}

// serveRebuild is the build --watch runs, logging to stderr.
func serveRebuild(ios *IO, opts *serveOptions) (func() error, error) {
	if info, err := os.Stat(opts.Watch); err != nil || !info.IsDir() {
		return nil, usageErr("--watch %s: no such folder", opts.Watch)
	}
	bo, err := opts.rebuildOptions(ios)
	if err != nil {
		return nil, err
	}
	bo.Log = ios.Err
	return func() error {
		res, err := build.Run([]string{opts.Watch}, bo)
		if res != nil && len(res.Findings) > 0 {
			printBuildFindings(ios, res.Findings)
		}
		return err
	}, nil
}
