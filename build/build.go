// Package build turns a tree of skills into a bundle. It owns the pipeline
// and its order, one named step a file (discover, check output, llms.txt,
// pack, lint, guard, index, versions, write, sign, swap; build/steps.go),
// so that an error says where it happened and a skipped step says why;
// the staging folder and the atomic swap; PackSkill (`skillpack pack`) and
// Sign (`skillpack sign DIST`). Pack is where the work is: one worker takes
// a skill from its folder to its archives and keeps only a summary, so
// memory is bounded by the workers, not by the bytes of the tree.
//
// It must not spell a path, a URL or a document (layout does), make
// archive bytes (pack does), decide reuse itself (build/internal/reuse
// does), import sign (it takes a Signer func), read the bundle published
// last except through package bundle, or write outside its staging folder
// before swap: a kill leaves the output as it was or wholly new.
package build

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillpack/skillpack/build/internal/scratch"
	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/version"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/plugin"
	"github.com/skillpack/skillpack/skill"
)

// Options control a build. The zero value (with Out set) builds with the defaults.
type Options struct {
	Out   string       // the output folder; required
	Lint  lint.Options // how skills are checked before anything is packed
	Jobs  int          // skills packed at once (0 = one per CPU)
	Force bool         // replace an output folder that holds files skillpack did not write
	// ForceFix is how the caller's user forces the build, for the fix of a
	// refused folder ("" = "pass --force"): serve --watch has no flag.
	ForceFix string
	DryRun   bool      // do everything but write
	Time     time.Time // the archives' one fixed time (zero = 1980-01-01)
	BaseURL  string    // absolute URL prefix for index entries ("" = relative URLs)
	NoLegacy bool      // leave out the v0.1.0 tree and index
	// LLMsTxt writes llms.txt at the bundle root, listing every skill;
	// LLMsTxtMerge names the site's own llms.txt (only read), which the
	// bundle's copies with the list in place of its markers.
	LLMsTxt      bool
	LLMsTxtMerge string
	// AICatalog writes .well-known/ai-catalog.json; it needs BaseURL.
	AICatalog bool
	// Marketplaces are the marketplace files to write, by client
	// (Marketplaces' keys: "claude"), each listing the plugins built.
	Marketplaces []string
	// CatalogTitle, CatalogPublisher and CatalogSource head index.html
	// (catalog.Options' Title, Publisher and Source).
	CatalogTitle, CatalogPublisher, CatalogSource string
	// Ignore leaves out the skills in the folders these gitignore-style
	// patterns name, relative to each root ("!" brings one back), as
	// skillpack.yaml's ignore list (Lint.Config) does.
	Ignore []string
	// All builds every skill found, also those no marketplace or plugin
	// manifest declares and those skill.DefaultIgnore leaves out.
	All bool
	// SkipInvalid leaves out the skills with error-level findings (listed
	// in Result.Skipped) and publishes the others, instead of refusing all.
	SkipInvalid bool
	Sign        Signer    // signs the archives and indexes; nil = unsigned
	Log         io.Writer // one line a step; nil = silent
	Verbose     bool      // also log the steps skipped, and why
	Progress    io.Writer // a live counter while packing (a terminal); nil = none
	// Swapped, if set, is called once the new bundle is in place, before
	// the previous one is removed, so that a server can serve it sooner.
	Swapped func()
	// Inventory fills Result.Skills and Result.Artifacts: every skill, and
	// every file of the bundle with its digest and size. Both grow with the
	// tree (10,000 skills make about 120,000 files), so only a caller that
	// prints them asks; without them a build holds a few strings per skill.
	Inventory bool
	// NoReuse packs and lints every skill afresh, ignoring the previous
	// record: the escape hatch when reuse is suspected of keeping something stale.
	NoReuse bool
	// Versioned also publishes every skill that has a version at paths
	// that never change, <name>/<version>/, with versions.json and, with
	// Release, the release's snapshot (layout.Versioning). The versions
	// published before are carried forward from Previous, else the output.
	Versioned bool
	// Release is the bundle's release, a SemVer version, for Versioned:
	// its snapshot is v<Release>/index.json. "" makes no snapshot.
	Release string
	// Previous is the bundle published last: the guard refuses a build
	// that changes a published version or lowers one, and a versioned
	// build carries its versions forward from it. nil is none, or for a
	// versioned build the bundle in the output folder.
	Previous bundle.Source
	// Spare, if set, keeps the bundle a build replaces for the next build
	// of the same output to stage into (see Spare), so that serve --watch
	// writes only what changed. It holds a hidden folder beside the
	// output until closed.
	Spare *Spare
	// SignFolder signs each skill folder's OMS statement into its
	// skill.oms.sig (layout.FolderSignature), with Sign or alone; nil =
	// none.
	SignFolder StatementSigner
}

// Signer signs one artifact and returns its Sigstore bundle; the command
// layer passes package sign's, so that build does not link sigstore.
type Signer func(artifact []byte) ([]byte, error)

// StatementSigner signs a skill folder's statement (layout.StatementDoc)
// and returns its folder signature, a Sigstore bundle with a DSSE
// envelope over the statement (OpenSSF Model Signing).
type StatementSigner func(statement []byte) ([]byte, error)

// Artifact is one file of the bundle.
type Artifact = layout.Artifact

// Skill is what the build made of one skill.
type Skill struct {
	Name          string        `json:"name"`
	Dir           string        `json:"dir"`
	Files         int           `json:"files"`
	Size          int64         `json:"size"`
	ContentDigest layout.Digest `json:"contentDigest"`
	TarGz         Artifact      `json:"tarGz"`
	Zip           Artifact      `json:"zip"`
	Reused        bool          `json:"reused"`
	LeftOut       []string      `json:"leftOut,omitempty"` // junk and .skillignore'd paths
}

// Result is the outcome of a build.
type Result struct {
	Out       string            `json:"out"`
	DryRun    bool              `json:"dryRun"`
	UpToDate  bool              `json:"upToDate"`  // nothing changed; the folder was left as it was
	Files     int               `json:"files"`     // in the bundle
	Skills    []Skill           `json:"skills"`    // with Options.Inventory
	Artifacts []Artifact        `json:"artifacts"` // with Options.Inventory, sorted by path
	Excluded  []layout.Excluded `json:"legacyExcluded,omitempty"`
	// MCPExcluded are the skills the MCP documents leave out, because MCP
	// hosts refuse their entries (skill.CheckMCP), with the reason and
	// the fix; the other documents keep them.
	MCPExcluded []layout.Excluded `json:"mcpExcluded,omitempty"`
	// Unwritten are the marketplace files Options.Marketplace asked for
	// that would list no plugin, and so were not written, each with why.
	Unwritten []layout.Excluded `json:"unwrittenMarketplaces,omitempty"`
	Findings  []lint.Finding    `json:"findings"`
	Skipped   []Skipped         `json:"skipped"` // with Options.SkipInvalid: the skills left out
	Packed    int               `json:"packed"`
	Reused    int               `json:"reused"`
	// Changes is what the guard found comparing the build with the
	// previous bundle (Options.Previous): its errors refused the build.
	Changes []layout.Change `json:"changes,omitempty"`
	// PluginsOut are the plugins found that the bundle leaves out; a
	// plugin's errors leave out none of its skills.
	PluginsOut []PluginOut `json:"pluginsLeftOut,omitempty"`
}

// Skipped is a skill that Options.SkipInvalid left out of the bundle, with
// the error-level findings that made it invalid (which Result.Findings
// holds too).
type Skipped struct {
	Name     string         `json:"name"`
	Dir      string         `json:"dir"`
	Findings []lint.Finding `json:"findings"`
}

// PluginOut is a plugin the bundle leaves out, and why: its lint errors,
// or what its archives cannot be.
type PluginOut struct {
	Name   string `json:"name"`
	Dir    string `json:"dir"`
	Reason string `json:"reason"`
}

// LintError stops a build whose skills have error-level findings; nothing
// has been written when it is returned.
type LintError struct {
	Errors int
	// Clashes counts the skills that another skill of the bundle has the
	// name of: with SkipInvalid, left out.
	Clashes int
	All     bool // with Options.SkipInvalid: every skill is invalid, none is left to publish
	Valid   int  // without Options.SkipInvalid: the skills --skip-invalid would publish
}

func (e *LintError) Error() string {
	what := human.Plural(e.Errors, "lint error", "lint errors")
	switch {
	case e.Clashes == 0:
	case e.Errors == 0:
		what = human.Plural(e.Clashes, "skill", "skills") + " whose name another skill of the bundle has"
	default:
		what += ", and " + human.Plural(e.Clashes, "skill", "skills") + " whose name another skill of the bundle has"
	}
	switch {
	case e.All && e.Clashes > 0:
		return "no skill is left to publish (" + what + "); nothing was written"
	case e.All:
		return "every skill is invalid (" + what + "); nothing was written"
	}
	return what + "; nothing was written"
}

// ExitClass is the command's exit code: 1, a failed check.
func (*LintError) ExitClass() int { return 1 }

// NoSkillsError is a build whose inputs hold no skill: a wrong path, the
// user's to fix. Nothing has been written when it is returned.
type NoSkillsError struct {
	Roots []string
	Notes []string // why, where discovery knows: a skill.md passed over, skills the scope left out
}

func (e *NoSkillsError) Error() string {
	if len(e.Roots) == 1 {
		if fi, err := os.Stat(e.Roots[0]); err == nil && !fi.IsDir() {
			return fmt.Sprintf("%s is a file; give the folder of a skill (holding SKILL.md) or a folder of skills", e.Roots[0])
		}
	}
	msg := fmt.Sprintf("no skills found under %s (a skill is a folder holding SKILL.md)", strings.Join(e.Roots, ", "))
	for _, n := range e.Notes {
		msg += "\n  " + n
	}
	return msg
}

// ExitClass is the command's exit code: 2, the user's to fix.
func (*NoSkillsError) ExitClass() int { return 2 }

// SourceDateEpoch parses the SOURCE_DATE_EPOCH convention
// (reproducible-builds.org): whole seconds since 1970, UTC.
func SourceDateEpoch(s string) (time.Time, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a whole number of seconds since 1970", s)
	}
	return time.Unix(n, 0).UTC(), nil
}

// Generator names what made the archives: the tool and the compressor.
// Archive bytes are a function of both, so it is recorded in the indexes
// and in the reuse key.
func Generator() string {
	return "skillpack " + version.Version() + " (" + pack.Generator() + ")"
}

// work is what the build keeps of one skill between steps: a few words,
// its summary being in the scratch file, so that memory is bounded by the
// workers, not by the tree.
type work struct {
	src      *skill.Skill // its Doc is dropped once the skill is processed
	name     string
	named    lint.Named     // what the checks across skills read
	findings []lint.Finding // from the per-skill rules
	key      layout.Digest  // the archive key (reuse.ArchiveKey)
	reused   bool
	holds    bool             // reused, and its other files in the output hold their bytes too (reuse.Last.Unchanged)
	sameLint bool             // the previous record holds this build's lint verdict
	at       scratch.Spot     // the summary, once kept
	kept     bool             // packed (or reused) and summarized
	err      error            // why the skill could not be packed
	invalid  bool             // lint found an error in the skill itself
	skipped  bool             // left out by Options.SkipInvalid, or leaving its name to another (lint.Shadowed)
	wait     bool             // packed only once lint has said it is published (mayShare)
	rootRef  bool             // its SKILL.md names ${CLAUDE_PLUGIN_ROOT}: it runs its plugin's own files
	page     *layout.Rendered // its page in the catalog, once rendered
}

// task is a skill while a worker processes it, dropped when the skill is done.
type task struct {
	*work
	files   *skill.Files        // collected
	collErr error               // why the files could not be collected (lint reports it)
	hashed  []pack.Member       // the files' digests, when hashed before lint
	lintKey layout.Digest       // what lint's per-skill verdict depends on; "" until known
	verdict []lint.Finding      // what lint's per-skill rules found (lint.CheckSkill)
	asKept  bool                // verdict is the last record's (keptVerdict)
	sum     summary             // what later steps read of it, once kept
	last    *layout.RecordSkill // the last build's record of this skill, if any
}

// builder is what every step of one build reads: the options, the lint
// options resolved once, the Result filled as the steps go, and the
// staging folder. What a step works out it returns to the next (steps.go).
type builder struct {
	ctx      context.Context
	opts     Options
	roots    []string
	res      *Result
	lintOpts lint.Options // the per-skill lint options
	st       staging
}

// discovered is what the first steps found: the skills, the output folder
// and the bundle already in it, and the llms.txt to write (nil for none).
type discovered struct {
	discovery
	out  *output
	llms *layout.LLMsOptions
}

// discovery is what discover found: the skills, and the plugins holding
// them (lint leaves out the invalid ones with SkipInvalid).
type discovery struct {
	skills  []*skill.Skill
	plugins []*plugin.Plugin
	markets []string           // the marketplace files met, for lint
	broken  []skill.BrokenLink // where a skill would be, leading nowhere, for lint
	copies  []*skill.Skill     // identical copies published from another (lint.Scope.Dedupe)
}

// packed is every skill once pack is done with it; after lint, those to publish.
type packed struct {
	*discovered
	work  []*work       // in the order found; after lint, the published ones
	named []*work       // after lint: the published skills, by name
	sums  *scratch.File // each packed skill's summary (summary.go)
	// inside are the skills published only inside others' archives
	// (lint.Shadowed), which a plugin's archives hold.
	inside []string

	// pack's own: lint's leaveOut packs again the skills that need it.
	claims  map[string]*work // which skill packs under each name (see claim)
	claimMu sync.Mutex
	failed  atomic.Bool // a skill has a lint or pack error: pack no more
	settled bool        // lint has said which skills are published: none waits
}

// planned is the bundle laid out: its key, and unless the output is up to
// date already, the plan of every entry, with the documents rendered into
// their digests.
type planned struct {
	*packed
	prev *previous       // the bundle published last (guard); nil for none
	key  layout.Digest   // reuse.BundleKey of this build
	plan *layout.Planned // nil when the output is up to date
	docs map[string]bool // the documents index staged as it planned them, and the plugins' archives
	// plugins are what the record keeps of the plugins' archives.
	plugins []layout.RecordPlugin
}

// staged is a planned bundle whose every file is in the staging folder
// (unless it is up to date, or a dry run): what sign and swap take.
type staged struct{ *planned }
