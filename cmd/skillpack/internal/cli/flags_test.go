package cli

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/verify"
)

// The first level of each command's tests: its command line parsed into
// its options, and those resolved into the options of the package that
// does the work, with the run function left out. The second level, run
// functions to exact output, is the scripts in testdata/script.

// parse executes cmd, whose run function is a capture, on argv.
func parse(t *testing.T, cmd *cobra.Command, argv []string) {
	t.Helper()
	cmd.SetArgs(argv)
	cmd.SetOut(new(strings.Builder))
	cmd.SetErr(new(strings.Builder))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
}

// parsed is the options newCmd's command hands its run function for argv.
func parsed[O any](t *testing.T, ios *IO, newCmd func(*IO, func(O) error) *cobra.Command, argv []string) O {
	t.Helper()
	var opts O
	parse(t, newCmd(ios, func(o O) error { opts = o; return nil }), argv)
	return opts
}

// configs writes the configs the cases name with --config into a fresh
// working directory, where no skillpack.yaml is found upward.
func configs(t *testing.T) {
	t.Helper()
	writeSkills(t, map[string]string{
		"site.yaml":       "profile: claude\nbuild:\n  base-url: https://example.com/skills\n  no-legacy: true\n  skip-invalid: true\n",
		"badurl.yaml":     "build:\n  base-url: example.com\n",
		"release.yaml":    "build:\n  base-url: https://example.com/skills\n  llms-txt: true\n  ai-catalog: true\n  versioned: true\n  previous: https://example.com/skills\n",
		"skills/SKILL.md": cleanSkill,
	})
}

// resolvedLint takes the config out of o for a comparison of the rest,
// and returns its profile and path.
func resolvedLint(o *build.Options) (profile, path string) {
	set := o.Lint.Settings
	o.Lint.Settings = lint.Settings{}
	if set.Profile == nil {
		return "", ""
	}
	return set.Profile.Name, set.File
}

func TestBuildFlags(t *testing.T) {
	configs(t)
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		argv    []string
		env     map[string]string
		roots   []string
		want    build.Options
		profile string
		config  string
		err     string
	}{
		{argv: nil, want: build.Options{Out: "dist"}, profile: "clients"},
		{
			argv:  []string{"skills", "more", "-o", "out", "-j", "4", "--force", "--dry-run", "--no-reuse", "--no-legacy", "--skip-invalid", "--base-url", "https://example.com/s", "--strict"},
			roots: []string{"skills", "more"},
			want: build.Options{Out: "out", Jobs: 4, Force: true, DryRun: true, NoReuse: true, NoLegacy: true, SkipInvalid: true,
				BaseURL: "https://example.com/s", Lint: lintStrict},
			profile: "clients",
		},
		// Only the summaries ask for every skill and file.
		{argv: []string{"--json"}, want: build.Options{Out: "dist", Inventory: true}, profile: "clients"},
		{argv: []string{"--step-summary", "summary.md"}, want: build.Options{Out: "dist", Inventory: true}, profile: "clients"},
		{argv: nil, env: map[string]string{"SOURCE_DATE_EPOCH": "1767225600"}, want: build.Options{Out: "dist", Time: epoch}, profile: "clients"},
		// The config's build section fills in what the flags leave out.
		{
			argv:    []string{"--config", "site.yaml"},
			want:    build.Options{Out: "dist", BaseURL: "https://example.com/skills", NoLegacy: true, SkipInvalid: true},
			profile: "claude", config: "site.yaml",
		},
		{
			argv:    []string{"--config", "site.yaml", "--skip-invalid=false", "--no-legacy=false", "--base-url", "https://example.org", "--profile", "relaxed"},
			want:    build.Options{Out: "dist", BaseURL: "https://example.org"},
			profile: "relaxed", config: "site.yaml",
		},
		{argv: []string{"--base-url", "ftp://example.com"}, err: `--base-url "ftp://example.com": use an absolute http or https URL`},
		{argv: []string{"--config", "badurl.yaml"}, err: `badurl.yaml:2: build.base-url "example.com": use an absolute http or https URL`},
		{argv: []string{"--profile", "claud"}, err: `--profile: unknown profile "claud" (did you mean "claude"?)`},
		// Versions: a tag's "v" is dropped; --previous is opened by runBuild.
		{argv: []string{"--versioned", "--release-version", "v2.0.0-rc.1"}, want: build.Options{Out: "dist", Versioned: true, Release: "2.0.0-rc.1"}, profile: "clients"},
		{argv: []string{"--versioned", "--previous", "https://example.com"}, want: build.Options{Out: "dist", Versioned: true}, profile: "clients"},
		{argv: []string{"--release-version", "1.0.0"}, err: "--release-version needs --versioned"},
		{argv: []string{"--versioned", "--release-version", "01.2"}, err: `--release-version: release "01.2" is not a SemVer version; did you mean 1.2.0?`},
		{argv: nil, env: map[string]string{"SOURCE_DATE_EPOCH": "yesterday"}, err: `SOURCE_DATE_EPOCH="yesterday"`},
		// The discovery documents; the catalog names its host, so it
		// needs a base URL, from the flag or the config.
		{
			argv:    []string{"--llms-txt", "--llms-txt-merge", "site/llms.txt", "--ai-catalog", "--base-url", "https://example.com/s"},
			want:    build.Options{Out: "dist", LLMsTxt: true, LLMsTxtMerge: "site/llms.txt", AICatalog: true, BaseURL: "https://example.com/s"},
			profile: "clients",
		},
		{
			argv:    []string{"--config", "site.yaml", "--ai-catalog"},
			want:    build.Options{Out: "dist", BaseURL: "https://example.com/skills", NoLegacy: true, SkipInvalid: true, AICatalog: true},
			profile: "claude", config: "site.yaml",
		},
		{argv: []string{"--ai-catalog"}, err: "--ai-catalog: the AI Catalog needs a base URL (--base-url)"},
		{argv: []string{"--ai-catalog", "--base-url", "http://[::1]:8080"}, err: `--ai-catalog: base URL "http://[::1]:8080": the AI Catalog's identifiers name its host, and "::1" is not a DNS name`},
	} {
		ios, _, _ := fakeIO(tc.env)
		opts := parsed(t, ios, newBuildCmd, tc.argv)
		if !slices.Equal(opts.Roots, tc.roots) {
			t.Errorf("%q: roots %q, want %q", tc.argv, opts.Roots, tc.roots)
		}
		got, err := opts.resolve(ios)
		if !matchErr(t, tc.argv, err, tc.err) {
			continue
		}
		profile, config := resolvedLint(&got)
		if !reflect.DeepEqual(got, tc.want) || profile != tc.profile || config != tc.config {
			t.Errorf("%q:\n got %+v, profile %q, config %q\nwant %+v, profile %q, config %q", tc.argv, got, profile, config, tc.want, tc.profile, tc.config)
		}
	}
}

// lintStrict is the lint options of --strict, the config taken out.
var lintStrict = lint.Options{Strict: true}

func TestPackFlags(t *testing.T) {
	configs(t)
	for _, tc := range []struct {
		argv    []string
		dir     string
		want    build.PackOptions
		profile string
		err     string
	}{
		{argv: []string{"skills"}, dir: "skills", want: build.PackOptions{Out: "."}, profile: "clients"},
		{
			argv: []string{"skills", "-o", "upload", "--layout", "wrapped", "--strict", "--profile", "claude"},
			dir:  "skills", want: build.PackOptions{Out: "upload", Wrapped: true, Lint: lintStrict}, profile: "claude",
		},
		// Pack writes no bundle, but a bad value in the config is refused
		// by every command that reads it, as an unknown key is.
		{argv: []string{"skills", "--config", "badurl.yaml"}, dir: "skills", err: `badurl.yaml:2: build.base-url "example.com"`},
		{argv: []string{"skills", "--layout", "wraped"}, dir: "skills", err: `--layout: unknown layout "wraped" (did you mean "wrapped"?); want flat or wrapped`},
	} {
		ios, _, _ := fakeIO(nil)
		opts := parsed(t, ios, newPackCmd, tc.argv)
		if opts.Dir != tc.dir {
			t.Errorf("%q: dir %q, want %q", tc.argv, opts.Dir, tc.dir)
		}
		got, err := opts.resolve(ios)
		if !matchErr(t, tc.argv, err, tc.err) {
			continue
		}
		bo := build.Options{Lint: got.Lint}
		profile, _ := resolvedLint(&bo)
		got.Lint = bo.Lint
		if !reflect.DeepEqual(got, tc.want) || profile != tc.profile {
			t.Errorf("%q:\n got %+v, profile %q\nwant %+v, profile %q", tc.argv, got, profile, tc.want, tc.profile)
		}
	}
}

func TestServeFlags(t *testing.T) {
	configs(t)
	for _, tc := range []struct {
		argv    []string
		want    serveOptions // the flags'
		rebuild build.Options
		profile string
		err     string
	}{
		{argv: []string{"dist"}, want: serveOptions{Dist: "dist", Addr: "127.0.0.1:8080", LogFormat: "text", CacheIndex: 5 * time.Minute, CacheFiles: time.Hour, MaxConns: 1024}, rebuild: build.Options{Out: "dist"}, profile: "clients"},
		{
			argv:    []string{"dist", "--stdio", "--watch", "skills", "--no-reuse", "--strict"},
			want:    serveOptions{Dist: "dist", Addr: "127.0.0.1:8080", LogFormat: "text", CacheIndex: 5 * time.Minute, CacheFiles: time.Hour, MaxConns: 1024, Stdio: true, Watch: "skills", BuildFlags: BuildFlags{LintOptions: LintOptions{Strict: true}, NoReuse: true}},
			rebuild: build.Options{Out: "dist", NoReuse: true, Lint: lintStrict}, profile: "clients",
		},
		// --watch builds as build does, with the config's build section.
		{
			argv:    []string{"dist", "--watch", "skills", "--config", "site.yaml", "--addr", ":0"},
			want:    serveOptions{Dist: "dist", Addr: ":0", LogFormat: "text", CacheIndex: 5 * time.Minute, CacheFiles: time.Hour, MaxConns: 1024, Watch: "skills", BuildFlags: BuildFlags{LintOptions: LintOptions{Config: "site.yaml"}}},
			rebuild: build.Options{Out: "dist", BaseURL: "https://example.com/skills", NoLegacy: true, SkipInvalid: true}, profile: "claude",
		},
		// The discovery documents too, but not the release keys: a
		// rebuild on an edit is not a release.
		{
			argv:    []string{"dist", "--watch", "skills", "--config", "release.yaml"},
			want:    serveOptions{Dist: "dist", Addr: "127.0.0.1:8080", LogFormat: "text", CacheIndex: 5 * time.Minute, CacheFiles: time.Hour, MaxConns: 1024, Watch: "skills", BuildFlags: BuildFlags{LintOptions: LintOptions{Config: "release.yaml"}}},
			rebuild: build.Options{Out: "dist", BaseURL: "https://example.com/skills", LLMsTxt: true, AICatalog: true}, profile: "clients",
		},
		{
			argv: []string{"dist", "--watch", "skills", "--config", "badurl.yaml"},
			want: serveOptions{Dist: "dist", Addr: "127.0.0.1:8080", LogFormat: "text", CacheIndex: 5 * time.Minute, CacheFiles: time.Hour, MaxConns: 1024, Watch: "skills", BuildFlags: BuildFlags{LintOptions: LintOptions{Config: "badurl.yaml"}}},
			err:  `badurl.yaml:2: build.base-url "example.com"`,
		},
	} {
		ios, _, _ := fakeIO(nil)
		var opts *serveOptions
		parse(t, newServeCmd(ios, func(_ context.Context, o *serveOptions) error { opts = o; return nil }), tc.argv)
		got := *opts
		got.given = nil
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.argv, got, tc.want)
		}
		rebuild, err := opts.rebuildOptions(ios)
		if !matchErr(t, tc.argv, err, tc.err) {
			continue
		}
		profile, _ := resolvedLint(&rebuild)
		if !reflect.DeepEqual(rebuild, tc.rebuild) || profile != tc.profile {
			t.Errorf("%q: rebuild\n got %+v, profile %q\nwant %+v, profile %q", tc.argv, rebuild, profile, tc.rebuild, tc.profile)
		}
	}
}

// TestServeServerOptions checks the serving flags: what they give serve,
// and a usage error naming the flag and the fix for each bad value.
func TestServeServerOptions(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := file("tokens", "# team\nabc123\n\n  def456  \n")
	for _, tc := range []struct {
		argv []string
		err  string
	}{
		{argv: []string{"dist", "--log-format", "json", "--cache-index", "0", "--cache-files", "2h", "--base-url", "https://skills.example.com", "--auth-token-file", good}},
		{argv: []string{"dist", "--log-format", "yaml"}, err: `--log-format: unknown format "yaml"; want text or json`},
		{argv: []string{"dist", "--log-format", "jsn"}, err: `--log-format: unknown format "jsn" (did you mean "json"?); want text or json`},
		{argv: []string{"dist", "--base-url", "skills.example.com"}, err: "--base-url: "},
		{argv: []string{"dist", "--cache-files", "-1s"}, err: "take a duration of 0 or more"},
		{argv: []string{"dist", "--auth-token-file", file("empty", "# nothing\n\n")}, err: "holds no token; put one on a line of its own"},
		{argv: []string{"dist", "--auth-token-file", file("spaced", "ok\ntwo words\n")}, err: "spaced: line 2: a token is printable ASCII without spaces"},
		{argv: []string{"dist", "--auth-token-file", filepath.Join(dir, "missing")}, err: "missing: no such file"},
		{argv: []string{"dist", "--stdio", "--addr", ":1"}, err: "--stdio serves MCP on stdin and stdout only"},
	} {
		ios, _, _ := fakeIO(nil)
		var opts *serveOptions
		parse(t, newServeCmd(ios, func(_ context.Context, o *serveOptions) error { opts = o; return nil }), tc.argv)
		so, err := opts.serverOptions(ios)
		if !matchErr(t, tc.argv, err, tc.err) {
			continue
		}
		if *so.Cache != (layout.Cache{Index: 0, Files: 2 * time.Hour}) || so.BaseURL != "https://skills.example.com" ||
			!slices.Equal(so.Tokens, []string{"abc123", "def456"}) || !so.LogRequests || !so.Log.Handler().Enabled(context.Background(), slog.LevelInfo) {
			t.Errorf("%q: %+v", tc.argv, so)
		}
	}
	// --watch serves what changes on every save: nothing is to be cached
	// unless a flag says so (a TypeScript SDK client read a cached
	// SKILL.md for five minutes after hearing of the change).
	for _, tc := range []struct {
		argv []string
		want layout.Cache
	}{
		{[]string{"dist"}, layout.DefaultCache},
		{[]string{"dist", "--watch", "skills"}, layout.Cache{}},
		{[]string{"dist", "--watch", "skills", "--cache-files", "1h"}, layout.Cache{Files: time.Hour}},
	} {
		ios, _, _ := fakeIO(nil)
		var opts *serveOptions
		parse(t, newServeCmd(ios, func(_ context.Context, o *serveOptions) error { opts = o; return nil }), tc.argv)
		if so, err := opts.serverOptions(ios); err != nil || *so.Cache != tc.want {
			t.Errorf("%q: cache %+v, %v; want %+v", tc.argv, so.Cache, err, tc.want)
		}
	}
}

func TestLintFlags(t *testing.T) {
	for _, tc := range []struct {
		argv     []string
		want     lintCmdOptions
		conflict string
	}{
		{argv: nil, want: lintCmdOptions{Format: "text", FailOn: "error"}},
		{
			argv: []string{"a", "b", "-f", "sarif", "--fail-on", "warning", "--strict", "--profile", "relaxed", "--config", "c.yaml", "--baseline", "b.json"},
			want: lintCmdOptions{Paths: []string{"a", "b"}, Format: "sarif", FailOn: "warning",
				LintOptions: LintOptions{Strict: true, Profile: "relaxed", Config: "c.yaml", Baseline: "b.json"}},
		},
		// --json is --format json; with another format, a mistake reported in the document.
		{argv: []string{"--json"}, want: lintCmdOptions{Format: "json", JSON: true, FailOn: "error"}},
		{argv: []string{"--json", "--format", "json"}, want: lintCmdOptions{Format: "json", JSON: true, FailOn: "error"}},
		{argv: []string{"--json", "--format", "sarif"}, want: lintCmdOptions{Format: "json", JSON: true, FailOn: "error"}, conflict: "--json is --format json; leave out --format sarif"},
		{argv: []string{"--fix", "--dry-run", "skills"}, want: lintCmdOptions{Paths: []string{"skills"}, Format: "text", FailOn: "error", fix: fixOptions{Fix: true, DryRun: true}}},
		{argv: []string{"--write-baseline", "b.json"}, want: lintCmdOptions{Format: "text", FailOn: "error", WriteBaseline: "b.json"}},
		{argv: []string{"--list-rules"}, want: lintCmdOptions{Format: "text", FailOn: "error", ListRules: true}},
		{argv: []string{"--explain", "name-format"}, want: lintCmdOptions{Format: "text", FailOn: "error", Explain: "name-format"}},
		// The build's scope: lint checks the skills build publishes.
		{argv: []string{"--ignore", "drafts/", "--ignore", "!tests/", "--all"}, want: lintCmdOptions{Format: "text", FailOn: "error",
			ScopeFlags: ScopeFlags{Ignore: []string{"drafts/", "!tests/"}, All: true}}},
	} {
		got := *parsed(t, &IO{}, newLintCmd, tc.argv)
		if !slices.Equal(got.Paths, tc.want.Paths) {
			t.Errorf("%q: paths %q, want %q", tc.argv, got.Paths, tc.want.Paths)
		}
		got.Paths = tc.want.Paths
		conflict := ""
		if got.conflict != nil {
			conflict = got.conflict.Error()
		}
		got.conflict = nil
		if !reflect.DeepEqual(got, tc.want) || conflict != tc.conflict {
			t.Errorf("%q:\n got %+v, conflict %q\nwant %+v, conflict %q", tc.argv, got, conflict, tc.want, tc.conflict)
		}
	}
}

func TestVerifyFlags(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want verifyOptions
	}{
		{argv: []string{"dist"}, want: verifyOptions{Source: "dist", Options: verify.Options{MaxSize: verify.DefaultMaxSize, Timeout: verify.DefaultTimeout}}},
		{
			argv: []string{"https://example.com", "--json", "--require-signatures", "--max-size", "10MB", "--timeout", "5s",
				"--certificate-identity-regexp", "^https://github.com/o/", "--certificate-oidc-issuer", "https://token.actions.githubusercontent.com"},
			want: verifyOptions{Source: "https://example.com", JSON: true, Options: verify.Options{RequireSignatures: true, MaxSize: 10e6, Timeout: 5 * time.Second},
				Sig: SignatureFlags{CertificateIdentityRegexp: "^https://github.com/o/", CertificateOIDCIssuer: "https://token.actions.githubusercontent.com"}},
		},
		{argv: []string{"dist", "--key", "cosign.pub", "--trusted-root", "root.json", "--max-size", "2KiB"},
			want: verifyOptions{Source: "dist", Options: verify.Options{MaxSize: 2048, Timeout: verify.DefaultTimeout}, Sig: SignatureFlags{Key: "cosign.pub", TrustedRoot: "root.json"}}},
		{argv: []string{"dist", "--previous", "https://example.com"},
			want: verifyOptions{Source: "dist", Options: verify.Options{MaxSize: verify.DefaultMaxSize, Timeout: verify.DefaultTimeout, Previous: "https://example.com"}}},
		{argv: []string{"s3://b/p", "--endpoint", "http://10.0.0.1:7070", "--insecure", "--username", "AKID", "--password-stdin"},
			want: verifyOptions{Source: "s3://b/p", Options: verify.Options{MaxSize: verify.DefaultMaxSize, Timeout: verify.DefaultTimeout},
				Target: TargetFlags{Endpoint: "http://10.0.0.1:7070", Insecure: true, Login: LoginFlags{Username: "AKID", PasswordStdin: true}}}},
		{argv: []string{"installed/skill", "--certificate-chain", "ca.pem", "--signature", "skill.oms.sig"},
			want: verifyOptions{Source: "installed/skill", Options: verify.Options{MaxSize: verify.DefaultMaxSize, Timeout: verify.DefaultTimeout}, Signature: "skill.oms.sig", Sig: SignatureFlags{CertificateChain: "ca.pem"}}},
	} {
		var opts *verifyOptions
		parse(t, newVerifyCmd(&IO{}, func(_ context.Context, o *verifyOptions) error { opts = o; return nil }), tc.argv)
		if !reflect.DeepEqual(*opts, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.argv, *opts, tc.want)
		}
	}
}

func TestSignFlags(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		dist string
		want SignOptions
	}{
		{argv: []string{"dist"}, dist: "dist"},
		{
			argv: []string{"out", "--key", "cosign.key", "--rekor-url", "https://rekor.example", "--tsa-url", "https://tsa.example"},
			dist: "out", want: SignOptions{Key: "cosign.key", RekorURL: "https://rekor.example", TSAURL: "https://tsa.example"},
		},
		{
			argv: []string{"dist", "--identity-token", "tok", "--fulcio-url", "https://fulcio.example", "--trusted-root", "root.json", "--signing-config", "sc.json"},
			dist: "dist", want: SignOptions{IdentityToken: "tok", FulcioURL: "https://fulcio.example", TrustedRoot: "root.json", SigningConfig: "sc.json"},
		},
	} {
		var dist string
		var opts *SignOptions
		parse(t, newSignCmd(&IO{}, func(_ context.Context, d string, o *SignOptions) error { dist, opts = d, o; return nil }), tc.argv)
		if dist != tc.dist || *opts != tc.want {
			t.Errorf("%q: %q %+v, want %q %+v", tc.argv, dist, *opts, tc.dist, tc.want)
		}
	}
}

func TestNewFlags(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want newOptions
	}{
		{argv: []string{"pdf-tools"}, want: newOptions{Name: "pdf-tools", Dir: "."}},
		{argv: []string{"pdf-tools", "--dir", "skills", "--description", "Fills PDF forms.", "--json"},
			want: newOptions{Name: "pdf-tools", Dir: "skills", Description: "Fills PDF forms.", JSON: true}},
	} {
		if got := *parsed(t, &IO{}, newNewCmd, tc.argv); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.argv, got, tc.want)
		}
	}
}

func TestInitFlags(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want initOptions
	}{
		{argv: nil, want: initOptions{Profile: "clients"}},
		{argv: []string{"--profile", "claude", "--ci", "github", "--force"}, want: initOptions{Profile: "claude", CI: "github", Force: true}},
	} {
		if got := *parsed(t, &IO{}, newInitCmd, tc.argv); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.argv, got, tc.want)
		}
	}
}

// TestArgs checks the argument validators: each mistake a usage error
// (exit 2) that says what the command takes.
func TestArgs(t *testing.T) {
	for args, want := range map[string]string{
		"pack":               "pack takes one SKILLDIR, not 0 arguments\nRun 'skillpack pack --help' for usage.",
		"verify a b":         "verify takes one DIST|URL|TARGET|SKILLDIR, not 2 arguments\nRun 'skillpack verify --help' for usage.",
		"serve":              "serve takes one DIST, not 0 arguments\nRun 'skillpack serve --help' for usage.",
		"new a b c":          "new takes one NAME, not 3 arguments\nRun 'skillpack new --help' for usage.",
		"version now":        "version takes no arguments, not \"now\"\nRun 'skillpack version --help' for usage.",
		"lnt":                "unknown command \"lnt\" (did you mean \"lint\"?)\nRun 'skillpack --help' for usage.",
		"biuld --no-reuse":   "unknown command \"biuld\" (did you mean \"build\"?)\nRun 'skillpack --help' for usage.",
		"completion zsh now": "unknown command \"now\" for \"skillpack completion zsh\"\nRun 'skillpack completion zsh --help' for usage.",
	} {
		root := newRoot(&IO{Out: new(strings.Builder), Err: new(strings.Builder)})
		root.SetArgs(strings.Fields(args))
		err := root.Execute()
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != ExitUsage || err.Error() != want {
			t.Errorf("%s: %v, want a usage error %q", args, err, want)
		}
	}
}

// matchErr reports whether err is nil as wanted, else checks that it is a
// usage error holding want.
func matchErr(t *testing.T, argv []string, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("%q: %v", argv, err)
		}
		return err == nil
	}
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != ExitUsage || !strings.Contains(err.Error(), want) {
		t.Errorf("%q: %v, want a usage error holding %q", argv, err, want)
	}
	return false
}

// TestHelpNamesOwnFlags checks that every --flag a command's help and
// examples name is one of its own: pull's help sent users to --output,
// a flag it does not have. cobra's completion commands are not ours.
func TestHelpNamesOwnFlags(t *testing.T) {
	root := newRoot(&IO{})
	flag := regexp.MustCompile(`(?:^|[^-\w])--([a-z][a-z0-9-]*)`)
	var walk func(cmds []*cobra.Command)
	walk = func(cmds []*cobra.Command) {
		for _, c := range cmds {
			if c.Name() == "completion" {
				continue
			}
			for _, m := range flag.FindAllStringSubmatch(c.Long+"\n"+c.Example, -1) {
				if m[1] != "help" && c.Flags().Lookup(m[1]) == nil && c.InheritedFlags().Lookup(m[1]) == nil {
					t.Errorf("%s --help names --%s, which it does not have", c.CommandPath(), m[1])
				}
			}
			walk(c.Commands())
		}
	}
	walk(root.Commands())
}
