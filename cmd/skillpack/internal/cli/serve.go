package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/serve"
)

type serveOptions struct {
	LintOptions // for --watch rebuilds
	Dist        string
	Addr        string
	Stdio       bool
	Watch       string
}

func newServeCmd(ios *IO) *cobra.Command {
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

With --watch SKILLS, serve builds SKILLS into DIST first, then polls SKILLS
every second and rebuilds and serves the new bundle whenever a file changes.
A rebuild that fails leaves the last good bundle served.

Serve stops on SIGINT or SIGTERM, letting running requests finish.`,
		Example: `  skillpack serve dist
  skillpack serve dist --addr :8080
  skillpack serve dist --watch skills
  skillpack serve dist --stdio            # as an MCP server launched by a host`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dist = args[0]
			if opts.Stdio && cmd.Flags().Changed("addr") {
				return usageErr("--stdio serves MCP on stdin and stdout only; leave out --addr")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runServe(ctx, ios, opts)
		},
	}
	opts.AddFlags(cmd.Flags())
	f := cmd.Flags()
	f.StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "`address` to serve HTTP and MCP on")
	f.BoolVar(&opts.Stdio, "stdio", false, "serve MCP on stdin and stdout instead of HTTP")
	f.StringVar(&opts.Watch, "watch", "", "build the skills in `SKILLS` into DIST, and rebuild whenever they change")
	return cmd
}

func runServe(ctx context.Context, ios *IO, opts *serveOptions) error {
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
		return usageErr("--addr: %v", err)
	}
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(ios.Err, "skillpack: serving %s (%s) at %s, MCP at %s%s\n", opts.Dist, plural(b.Skills(), "skill"), url, url, serve.MCPPath)
	if err := s.Serve(ctx, ln); err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	return nil
}

// serveRebuild is the build --watch runs: the same lint settings and
// config as 'skillpack build', logging to stderr.
func serveRebuild(ios *IO, opts *serveOptions) (func() error, error) {
	if info, err := os.Stat(opts.Watch); err != nil || !info.IsDir() {
		return nil, usageErr("--watch %s: no such folder", opts.Watch)
	}
	cfg, err := opts.load()
	if err != nil {
		return nil, err
	}
	if err := layout.CheckBaseURL(cfg.Build.BaseURL); err != nil {
		return nil, usageErr("%s %s", baseURLSource(cfg, false), strings.TrimPrefix(err.Error(), "base URL "))
	}
	epoch, err := sourceDateEpoch(ios)
	if err != nil {
		return nil, err
	}
	bo := build.Options{
		Out: opts.Dist, Time: epoch, BaseURL: cfg.Build.BaseURL, NoLegacy: cfg.Build.NoLegacy,
		Lint: lint.Options{Config: cfg, Strict: opts.Strict},
		Log:  ios.Err,
	}
	return func() error {
		res, err := build.Run([]string{opts.Watch}, bo)
		if res != nil && len(res.Findings) > 0 {
			lint.Format(ios.Err, "text", &lint.Result{Findings: res.Findings}, lint.Tool{})
		}
		return err
	}, nil
}
