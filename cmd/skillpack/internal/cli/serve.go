package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/serve"
)

type serveOptions struct {
	BuildFlags // for --watch rebuilds: the lint flags and --no-reuse; shared with build and pack
	Dist       string
	Addr       string
	Stdio      bool
	Watch      string
	PublicURL  string // --base-url: for the catalog's install commands only
	TokenFile  string
	LogFormat  string
	CacheIndex time.Duration
	CacheFiles time.Duration
	MaxConns   int

	given func(flag string) bool // the flags on the command line
}

func newServeCmd(ios *IO, runF func(context.Context, *serveOptions) error) *cobra.Command {
	opts := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve DIST",
		Short: "Serve a built bundle over HTTP and MCP",
		Long: `Serve serves the bundle that skillpack build wrote to DIST, unchanged: the
indexes, skill files and archives over HTTP, with a static host's headers,
and the same skills over MCP at /mcp, or on stdin and stdout with --stdio.

Every file is checked against its recorded digest at startup and served
from what was checked, so a rebuild of DIST never mixes two bundles; a new
build is served once it is complete and checked, and on SIGHUP. With
--watch SKILLS, serve builds SKILLS into DIST and rebuilds on every change.
--auth-token-file requires a bearer token on every request.` + "\n\n" + docs("serve.md"),
		Example: `  skillpack serve dist
  skillpack serve dist --addr :8080
  skillpack serve dist --watch skills
  skillpack serve dist --addr :443 --base-url https://skills.example.com --auth-token-file tokens.txt
  skillpack serve dist --stdio            # as an MCP server launched by a host`,
		Args: oneArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dist = args[0]
			opts.given = cmd.Flags().Changed
			ctx, stop := interruptible(cmd.Context(), ios)
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
	f.StringVar(&opts.PublicURL, "base-url", "", "absolute `URL` clients reach the server at, for the install commands of the catalog page at / (default: the address each request came to; /index.html and the skill pages stay as built)")
	f.StringVar(&opts.TokenFile, "auth-token-file", "", "require a bearer token from `FILE` (one per line) on every HTTP request")
	f.StringVar(&opts.LogFormat, "log-format", "text", "log requests and events on stderr as `FORMAT`: text or json")
	f.DurationVar(&opts.CacheIndex, "cache-index", layout.DefaultCache.Index, "how long clients may cache the indexes, MCP documents and checksums.txt, and MCP results (with --watch: 0)")
	f.DurationVar(&opts.CacheFiles, "cache-files", layout.DefaultCache.Files, "how long clients may cache skill files such as SKILL.md (with --watch: 0)")
	f.IntVar(&opts.MaxConns, "max-connections", 1024, "serve at most `N` HTTP connections at once; more wait to be accepted")
	return cmd
}

func runServe(ctx context.Context, ios *IO, opts *serveOptions) error {
	so, err := opts.serverOptions(ios)
	if err != nil {
		return err
	}
	// The address is taken before anything is built, so that one in use
	// is said at once.
	var ln net.Listener
	if !opts.Stdio {
		if ln, err = listen(opts.Addr); err != nil {
			return err
		}
		defer ln.Close() // Serve closes it too; before it, an error does
	}
	var (
		watcher *serve.Watcher
		rebuild func(context.Context) error
		s       *serve.Server // once serving: a rebuild hands it the new bundle at once
		spare   *build.Spare  // what --watch's rebuilds stage into
	)
	if opts.Watch != "" {
		swapped := func() {
			if s != nil {
				s.Reload()
			}
		}
		// Each rebuild stages into the bundle the one before replaced,
		// writing only what changed (build.Spare), so that an edit is
		// served in well under a second on thousands of skills.
		spare = new(build.Spare)
		defer spare.Close()
		if rebuild, err = serveRebuild(ios, opts, spare, swapped); err != nil {
			return err
		}
		// Watch before the first build, so that no edit made while it
		// runs goes unseen.
		watcher = serve.NewWatcher([]string{opts.Watch}, time.Second)
		defer watcher.Close()
		if err := rebuild(ctx); err != nil {
			return err
		}
	}
	paceGC()
	b, err := serve.Open(opts.Dist)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	defer b.Close()
	s = serve.New(b, so)
	if b.Unheld() > 0 {
		so.Log.Warn(fmt.Sprintf("%d files did not fit the snapshot and are read by name: requests for them can fail while %s is rebuilt", b.Unheld(), opts.Dist))
	}
	if watcher != nil {
		// The spare is removed once no rebuild runs (see above).
		wctx, stop := context.WithCancel(ctx)
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			// So that the first edit is as quick as the ones after it.
			if err := spare.Prime(opts.Dist); err != nil {
				so.Log.Warn(fmt.Sprintf("--watch: each rebuild will stage every file: %v", err))
			}
			s.Watch(wctx, watcher, rebuild)
		}()
		defer func() { stop(); <-watched }()
	}
	go s.Follow(ctx, time.Second)
	go reloadOnHangup(ctx, s, opts, so.Log)
	json := opts.LogFormat == "json" // a log collector reads one format
	if opts.Stdio {
		if json {
			so.Log.Info("serving", "dist", opts.Dist, "bundle", b.Tally(), "mcp", "stdio")
		} else {
			ios.Infof("skillpack: serving %s (%s) over MCP on stdin and stdout", opts.Dist, b.Tally())
		}
		return s.ServeStdio(ctx, ios.In, ios.Out)
	}
	url := "http://" + ln.Addr().String()
	if json {
		so.Log.Info("serving", "dist", opts.Dist, "bundle", b.Tally(), "url", url, "mcp", url+serve.MCPPath)
	} else {
		ios.Infof("skillpack: serving %s (%s) at %s, MCP at %s%s", opts.Dist, b.Tally(), url, url, serve.MCPPath)
	}
	return s.Serve(ctx, ln)
}

// listen takes addr, saying what to do when another server has it.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	// Windows says WSAEADDRINUSE (10048), which its syscall.EADDRINUSE is not.
	if errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.Errno(10048)) {
		host, port, _ := net.SplitHostPort(addr)
		// The next port that was free when asked, not one merely named.
		next := "another port"
		for n, _ := strconv.Atoi(port); n > 0 && n < 65535 && next == "another port"; n++ {
			try := net.JoinHostPort(host, strconv.Itoa(n+1))
			if l, err := net.Listen("tcp", try); err == nil {
				l.Close()
				next = fmt.Sprintf("another port (--addr %s)", try)
			}
		}
		return nil, usageErr("--addr %s is in use by another server: stop it, or serve on %s", addr, next)
	}
	if err != nil {
		return nil, usageErr("--addr: %w", err)
	}
	return ln, nil
}

// serverOptions checks the serving flags and turns them into serve's.
func (o *serveOptions) serverOptions(ios *IO) (serve.Options, error) {
	if o.Stdio && o.given != nil && o.given("addr") {
		return serve.Options{}, usageErr("--stdio serves MCP on stdin and stdout only; leave out --addr")
	}
	if _, _, err := net.SplitHostPort(o.Addr); err != nil && !o.Stdio {
		return serve.Options{}, usageErr("--addr %s: --addr takes host:port, e.g. 127.0.0.1:8080 or :8080", o.Addr)
	}
	if err := layout.CheckBaseURL(o.PublicURL); err != nil { // "" is none
		return serve.Options{}, usageErr("--base-url: %w", err)
	}
	if o.MaxConns < 1 {
		return serve.Options{}, usageErr("--max-connections %d: give 1 or more", o.MaxConns)
	}
	if o.CacheIndex < 0 || o.CacheFiles < 0 {
		return serve.Options{}, usageErr("--cache-index and --cache-files take a duration of 0 or more, such as 5m or 1h")
	}
	// A --watch server changes what it serves on every save: clients are
	// told to ask again each time (HTTP no-cache, MCP ttlMs 0), or a client
	// told of a change reads the file it cached (the TypeScript SDK).
	for name, d := range map[string]*time.Duration{"cache-index": &o.CacheIndex, "cache-files": &o.CacheFiles} {
		if o.Watch != "" && (o.given == nil || !o.given(name)) {
			*d = 0
		}
	}
	var h slog.Handler
	lo := &slog.HandlerOptions{}
	if ios.Quiet {
		lo.Level = slog.LevelWarn // -q: what went wrong, not each reload and request
	}
	switch o.LogFormat {
	case "text":
		h = slog.NewTextHandler(ios.Err, lo)
	case "json":
		h = slog.NewJSONHandler(ios.Err, lo)
	default:
		return serve.Options{}, enumErr("log-format", "format", o.LogFormat, []string{"text", "json"})
	}
	so := serve.Options{
		MaxConns:    o.MaxConns,
		Cache:       &layout.Cache{Index: o.CacheIndex, Files: o.CacheFiles},
		BaseURL:     o.PublicURL,
		Log:         slog.New(h),
		LogRequests: !ios.Quiet,
	}
	if o.TokenFile != "" {
		tokens, err := readTokens(o.TokenFile)
		if err != nil {
			return serve.Options{}, usageErr("--auth-token-file %s: %w", o.TokenFile, err)
		}
		so.Tokens = tokens
	}
	return so, nil
}

// reloadOnHangup reloads the bundle, and the tokens, on each SIGHUP.
func reloadOnHangup(ctx context.Context, s *serve.Server, opts *serveOptions, log *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		if opts.TokenFile != "" {
			if tokens, err := readTokens(opts.TokenFile); err != nil {
				log.Error(fmt.Sprintf("SIGHUP: --auth-token-file %s: %v; the previous tokens stay", opts.TokenFile, err))
			} else {
				s.SetTokens(tokens)
			}
		}
		if err := s.Reload(); err != nil {
			log.Error(fmt.Sprintf("SIGHUP: still serving the previous bundle: %v", err))
		}
	}
}

// rebuildOptions is the build --watch runs into DIST, resolved as build's.
func (o *serveOptions) rebuildOptions(ios *IO) (build.Options, error) {
	bo, _, err := o.resolveBundle(ios, o.given)
	if err != nil {
		return bo, err
	}
	bo.Out = o.Dist
	return bo, nil
}

// serveRebuild is the build --watch runs, logging to stderr; swapped is
// called as soon as a new bundle is in place.
func serveRebuild(ios *IO, opts *serveOptions, spare *build.Spare, swapped func()) (func(context.Context) error, error) {
	if info, err := os.Stat(opts.Watch); err == nil && !info.IsDir() {
		return nil, usageErr("--watch %s is a file; give the folder of the skills to build and watch", opts.Watch)
	} else if err != nil {
		return nil, usageErr("--watch %s: no such folder", opts.Watch)
	}
	if err := opts.ScopeFlags.check([]string{opts.Watch}); err != nil {
		return nil, err
	}
	bo, err := opts.rebuildOptions(ios)
	if err != nil {
		return nil, err
	}
	bo.Log = ios.stepLog() // as build logs its steps: none under -q
	bo.Swapped = swapped
	bo.Spare = spare
	// A server that rebuilds on every edit should not be one flag away
	// from wiping a folder each time: build empties it, once.
	bo.ForceFix = fmt.Sprintf("run skillpack build %s -o %s --force once (serve has no --force)",
		human.ShellQuote(opts.Watch), human.ShellQuote(opts.Dist))
	return func(ctx context.Context) error {
		res, err := build.RunContext(ctx, []string{opts.Watch}, bo)
		// A build stopped (serve.Watch stops one when the skills change
		// under it) may have read a file half written or gone: its
		// findings are not the user's.
		if res != nil && len(res.Findings) > 0 && ctx.Err() == nil {
			printBuildFindings(ios, res.Findings)
		}
		return err
	}, nil
}

// paceGC gives serve's heap at least 32 MiB of room between collections,
// unless GOGC or GOMEMLIMIT decide. The MCP SDK allocates some 350 KB per
// HTTP request, so a small bundle's heap was collected hundreds of times a
// second: at 100 clients on one core p99 was 285-326 ms, 45-64 ms with the
// room (bench/mcp.sh PIN=1, examples). The room is a ballast the collector
// counts as live but never scans and the kernel never backs with memory. A
// multiple (GOGC=400) let a large heap grow fivefold: 20,000 clients took
// serve to 228 MB.
func paceGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		ballast = make([]byte, 32<<20)
	}
}

// ballast is paceGC's room, held for the life of the process.
var ballast []byte
