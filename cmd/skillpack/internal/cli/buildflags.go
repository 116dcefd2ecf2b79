package cli

import (
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/build"
	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
)

// BuildFlags are the flags that decide how skills are built, shared by
// build, pack and serve --watch, each registering the ones it offers;
// options (resolveBundle for a bundle) turns them, skillpack.yaml and the
// environment into build's options in one place. The zero value builds
// with the defaults.
type BuildFlags struct {
	LintOptions
	Jobs        int
	BaseURL     string
	NoLegacy    bool
	SkipInvalid bool
	NoReuse     bool
	// Which skills below the paths given are built (build only).
	ScopeFlags
	// The discovery documents beyond the indexes (build only).
	LLMsTxt      bool
	LLMsTxtMerge string
	AICatalog    bool
	Marketplaces []string
}

// AddFlags registers every build flag, as build offers them.
func (f *BuildFlags) AddFlags(fs *pflag.FlagSet) {
	f.LintOptions.AddFlags(fs)
	fs.IntVarP(&f.Jobs, "jobs", "j", 0, "skills packed at once (default: one per CPU)")
	fs.StringVar(&f.BaseURL, "base-url", "", "absolute `URL` the bundle is served at (default: relative URLs)")
	fs.BoolVar(&f.NoLegacy, "no-legacy", false, "leave out the legacy /.well-known/skills/ v0.1.0 tree")
	fs.BoolVar(&f.SkipInvalid, "skip-invalid", false, "leave out skills with lint errors and publish the rest (exit 0, with a warning; 1 when none is valid)")
	f.addNoReuse(fs)
	f.ScopeFlags.AddFlags(fs, "build")
	fs.BoolVar(&f.LLMsTxt, "llms-txt", false, "write llms.txt at the bundle root, with an Agent Skills section linking every SKILL.md")
	fs.StringVar(&f.LLMsTxtMerge, "llms-txt-merge", "", "write llms.txt as a copy of this `file`, the site's own, with the Agent Skills section in place of its markers")
	fs.BoolVar(&f.AICatalog, "ai-catalog", false, "write /.well-known/ai-catalog.json, the AI Catalog of every archive and SKILL.md (needs --base-url)")
	fs.StringSliceVar(&f.Marketplaces, "marketplace", nil, "write a client's marketplace file listing the plugins built: `claude` (.claude-plugin/marketplace.json), codex (.agents/plugins/marketplace.json), cursor (.cursor-plugin/marketplace.json), copilot (.github/plugin/marketplace.json); all but claude serve each plugin's folder; repeatable")
}

// addNoReuse registers --no-reuse, which serve --watch offers too.
func (f *BuildFlags) addNoReuse(fs *pflag.FlagSet) {
	fs.BoolVar(&f.NoReuse, "no-reuse", false, "pack and lint every skill afresh, ignoring the previous bundle's record")
}

// resolveBundle is resolve for a command that writes a bundle (build,
// serve --watch), with its URLs and contents too: a flag given (given;
// nil: none) wins over skillpack.yaml's build section, returned too.
func (f *BuildFlags) resolveBundle(ios *IO, given func(flag string) bool) (build.Options, *config.Config, error) {
	if given == nil {
		given = func(string) bool { return false }
	}
	cfg, err := f.load()
	if err != nil {
		return build.Options{}, nil, err
	}
	baseURL := pick(given, "base-url", f.BaseURL, cfg.Build.BaseURL)
	// Checked before any work; layout's "base URL" is told as where it was given.
	if err := layout.CheckBaseURL(baseURL); err != nil {
		return build.Options{}, nil, usageErr("%s %s", configSource(cfg, given("base-url"), "base-url"), strings.TrimPrefix(err.Error(), "base URL "))
	}
	aiCatalog := pick(given, "ai-catalog", f.AICatalog, cfg.Build.AICatalog)
	if _, err := layout.AICatalogPublisher(baseURL); aiCatalog && err != nil {
		return build.Options{}, nil, usageErr("%s: %w", configSource(cfg, given("ai-catalog"), "ai-catalog"), err)
	}
	for _, m := range f.Marketplaces {
		if err := layout.CheckMarketplace(m); err != nil {
			return build.Options{}, nil, usageErr("--marketplace: %w", err)
		}
	}
	bo, err := f.options(ios, cfg)
	bo.BaseURL, bo.AICatalog = baseURL, aiCatalog
	bo.Marketplaces = pick(given, "marketplace", f.Marketplaces, cfg.Build.Marketplaces)
	bo.NoLegacy = pick(given, "no-legacy", f.NoLegacy, cfg.Build.NoLegacy)
	bo.SkipInvalid = pick(given, "skip-invalid", f.SkipInvalid, cfg.Build.SkipInvalid)
	bo.Ignore, bo.All = f.Ignore, f.All
	bo.LLMsTxt = pick(given, "llms-txt", f.LLMsTxt, cfg.Build.LLMsTxt)
	bo.LLMsTxtMerge = pick(given, "llms-txt-merge", f.LLMsTxtMerge, cfg.Build.LLMsTxtMerge)
	bo.CatalogTitle, bo.CatalogPublisher, bo.CatalogSource = cfg.Build.CatalogTitle, cfg.Build.CatalogPublisher, cfg.Build.CatalogSource
	return bo, cfg, err
}

// pick is a setting's value: the flag's when the command line gave it,
// else skillpack.yaml's (its default when the file does not set it).
func pick[T any](given func(flag string) bool, flag string, value, config T) T {
	if given(flag) {
		return value
	}
	return config
}

// options is what every build, pack's included, takes from the flags,
// the config (LintOptions.load) and SOURCE_DATE_EPOCH.
func (f *BuildFlags) options(ios *IO, cfg *config.Config) (build.Options, error) {
	t, err := sourceDateEpoch(ios)
	if err != nil {
		return build.Options{}, err
	}
	return build.Options{
		Lint:    lint.Options{Settings: cfg.Lint, Strict: f.Strict},
		Time:    t,
		Jobs:    f.Jobs,
		NoReuse: f.NoReuse,
	}, nil
}

// configSource names where a build setting came from, for its errors: the
// flag, or the key of skillpack.yaml's build section of the same name.
func configSource(cfg *config.Config, flag bool, name string) string {
	if flag || cfg == nil || cfg.Path == "" {
		return "--" + name
	}
	return cfg.Path + ": build." + name
}

// sourceDateEpoch is the archives' one fixed time: SOURCE_DATE_EPOCH when
// it is set (reproducible-builds.org), else zero, which build takes for
// 1980-01-01.
func sourceDateEpoch(ios *IO) (time.Time, error) {
	s := ios.getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Time{}, nil
	}
	t, err := build.SourceDateEpoch(s)
	if err != nil {
		return t, usageErr("%w", err)
	}
	return t, nil
}
