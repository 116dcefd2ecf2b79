// Package verify checks a built bundle end to end, from a folder, a URL
// (as a client fetches it) or a bundle.Store a publish target offers
// (store.go): every digest and size recomputed, every index checked
// against the files and the other indexes, every archive unpacked in
// memory (pack.Unpack) and compared with the served files, signatures
// checked when present or required, and --previous's guard; another tool's
// index as clients read it (foreign.go). Folder checks an installed skill
// folder against its skill.oms.sig.
//
// It must trust nothing it reads: paths are checked before use, every read
// stops at a size limit, the check has a deadline, memory comes from one
// budget of about MaxSize (memory.go), and a broken bundle is a Report of
// Problems, never a panic or a hang. It must not write anything, import
// build, sign or publish/..., or read a bundle except through bundle.
package verify

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/jsonenc"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
)

// SignatureVerifier checks one Sigstore bundle (<artifact>.sigstore.json)
// against the artifact's raw sha256 digest.
type SignatureVerifier interface {
	Verify(bundleJSON []byte, artifactDigest []byte) error
}

// Defaults of the zero Options. The limits of reading files and archives
// are pack's, and of a bundle as a whole layout's, which the build keeps
// to: what it writes, verify accepts.
const (
	DefaultMaxSize     = pack.MaxFile    // bytes read of any one file
	DefaultMaxEntries  = pack.MaxEntries // entries in any one archive
	DefaultTimeout     = bundle.DefaultTimeout
	DefaultDeadline    = 5 * time.Minute  // the whole check
	DefaultMaxSkills   = layout.MaxSkills // entries in any one index
	DefaultJobs        = 8                // files fetched at once
	DefaultMaxProblems = 1000
)

// Options control a verification. The zero value checks everything with
// the defaults and does not verify signatures (it reports whether they are
// there).
type Options struct {
	// Verifier checks signature bundles; nil means signatures are found
	// and reported but not checked. Skill folder signatures
	// (skill.oms.sig) are checked when it is a StatementVerifier too.
	Verifier SignatureVerifier
	// RequireSignatures makes a missing or unchecked signature on an
	// archive, an index.json or mcp/skills.json a problem.
	RequireSignatures bool
	MaxSize           int64         // largest file read, in bytes (0 = DefaultMaxSize)
	MaxUnpacked       int64         // most bytes unpacked from one archive (0 = pack.MaxUnpacked)
	MaxEntries        int           // most entries in one archive (0 = DefaultMaxEntries)
	MaxRatio          int64         // most unpacked bytes per archive byte (0 = pack.MaxRatio)
	Timeout           time.Duration // each HTTP request, body included (0 = DefaultTimeout)
	// Deadline bounds the whole check (0 = DefaultDeadline). When it
	// passes, what was found so far is reported with one more problem
	// saying that the rest went unchecked.
	Deadline     time.Duration
	MaxSkills    int // most skills an index may list (0 = DefaultMaxSkills)
	Jobs         int // files fetched at once (0 = DefaultJobs)
	MaxRedirects int // redirects followed per request (0 = bundle.DefaultMaxRedirects)
	MaxProblems  int // problems kept in the report (0 = DefaultMaxProblems)
	// Header and HeaderFlagPrefix are URL's, as bundle.HTTPOptions says:
	// the headers go to the origin of the URL given and to no other.
	Header           http.Header
	HeaderFlagPrefix string
	// Previous is the bundle published before this one, a folder or a
	// URL (verify --previous), or "" for none: the bundle must not have
	// changed what it published (layout.Published.Compare). Header goes
	// to it only when it is on the origin of the URL verified.
	Previous string
}

// http is how a URL is fetched.
func (o Options) http() bundle.HTTPOptions {
	return bundle.HTTPOptions{Timeout: o.Timeout, MaxRedirects: o.MaxRedirects, MaxSize: o.MaxSize, Header: o.Header, HeaderFlagPrefix: o.HeaderFlagPrefix}
}

func (o Options) withDefaults() Options {
	o.MaxSize = cmp.Or(o.MaxSize, DefaultMaxSize)
	o.MaxEntries = cmp.Or(o.MaxEntries, DefaultMaxEntries)
	o.Timeout = cmp.Or(o.Timeout, DefaultTimeout)
	o.Deadline = cmp.Or(o.Deadline, DefaultDeadline)
	o.MaxSkills = cmp.Or(o.MaxSkills, DefaultMaxSkills)
	o.Jobs = cmp.Or(o.Jobs, DefaultJobs)
	o.MaxProblems = cmp.Or(o.MaxProblems, DefaultMaxProblems)
	return o
}

// Problem is one thing that did not verify.
type Problem struct {
	Path    string `json:"path"` // dist path (or URL) the problem is about
	Message string `json:"message"`
}

func (p Problem) String() string { return p.Path + ": " + p.Message }

// Signature statuses.
const (
	SigVerified   = "verified"    // the verifier accepted the bundle
	SigInvalid    = "invalid"     // the verifier rejected the bundle
	SigNotChecked = "not checked" // a bundle is there but no verifier was configured
	SigMissing    = "missing"     // no bundle beside the artifact
)

// Signature is what was found about one signable artifact's signature.
type Signature struct {
	Artifact string `json:"artifact"` // dist path of the signed file
	Bundle   string `json:"bundle"`   // dist path of its .sigstore.json
	Status   string `json:"status"`   // one of the Sig* constants
	Error    string `json:"error,omitempty"`
}

// Counts says how much was checked.
type Counts struct {
	Skills     int `json:"skills"`
	Files      int `json:"files"` // distinct files read and hashed
	Archives   int `json:"archives"`
	Indexes    int `json:"indexes"`
	Signatures int `json:"signatures"` // signature bundles verified
	// NotHeld is the files the documents name that the source does not
	// hold by design (a registry keeps no .zip and no served copies; see
	// bundle.Store); the documents' digests of a skill's files are then
	// checked against its .tar.gz.
	NotHeld int `json:"notHeld,omitempty"`
}

// Report is the outcome of a verification.
type Report struct {
	Source   string    `json:"source"`
	Checked  Counts    `json:"checked"`
	Problems []Problem `json:"problems"`
	Omitted  int       `json:"omitted,omitempty"` // problems beyond Options.MaxProblems
	// Warnings are what --previous found that is no problem: a skill the
	// previous bundle had and this one has not.
	Warnings   []Problem   `json:"warnings,omitempty"`
	Signatures []Signature `json:"signatures"`
	// Foreign is the generator a bundle not built by skillpack names in
	// its v0.2 index ("none" when it names none): it was checked as
	// clients read it, without skillpack's own conventions (foreign.go).
	Foreign string `json:"foreign,omitempty"`
	// Previous is what Options.Previous was compared with, when the
	// comparison ran: a clean one is worth saying so.
	Previous *Compared `json:"previous,omitempty"`
}

// Compared is the previous bundle a report compared the bundle with.
type Compared struct {
	Source   string `json:"source"`
	Skills   int    `json:"skills"`   // in its v0.2 index
	Versions int    `json:"versions"` // in its versions.json; 0 when built without --versioned
}

// OK reports whether everything verified.
func (r *Report) OK() bool { return len(r.Problems) == 0 && r.Omitted == 0 }

// WriteText writes one line per problem, "path: message".
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, p := range r.Warnings {
		b.WriteString("warning: " + p.String() + "\n")
	}
	for _, p := range r.Problems {
		b.WriteString(p.String() + "\n")
	}
	if r.Omitted > 0 {
		fmt.Fprintf(&b, "... and %d more problems\n", r.Omitted)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report in skillpack's one JSON encoding.
func (r *Report) WriteJSON(w io.Writer) error { return jsonenc.Write(w, r) }

// Summary is one line saying what was checked and whether it verified.
func (r *Report) Summary() string {
	c := r.Checked
	what := fmt.Sprintf("%s: %s, %s, %s, %s, %s", r.Source,
		human.Plural(c.Skills, "skill"), human.Plural(c.Files, "file"), human.Plural(c.Archives, "archive"),
		human.Plural(c.Indexes, "index", "indexes"), human.Plural(c.Signatures, "signature")+" verified")
	var notes []string
	if r.Foreign != "" {
		notes = append(notes, fmt.Sprintf("not built by skillpack (generator: %s): checked as clients read it", r.Foreign))
	}
	if n := len(r.Warnings); n > 0 {
		notes = append(notes, human.Plural(n, "warning"))
	}
	if p := r.Previous; p != nil {
		what := human.Plural(p.Skills, "skill")
		if p.Versions > 0 {
			what += ", " + human.Plural(p.Versions, "version")
		}
		notes = append(notes, fmt.Sprintf("compared with %s (%s)", p.Source, what))
	}
	if c.NotHeld > 0 {
		notes = append(notes, fmt.Sprintf("%s not held there (.zip archives, served copies; the .tar.gz archives vouch for the files)", human.Plural(c.NotHeld, "file")))
	}
	if n := r.countSigs(SigNotChecked); n > 0 {
		notes = append(notes, fmt.Sprintf("%s not checked (pass --certificate-identity and --certificate-oidc-issuer, or --key)", human.Plural(n, "signature")))
	}
	verdict := "everything verified"
	if !r.OK() {
		verdict = human.Plural(len(r.Problems)+r.Omitted, "problem")
	}
	return strings.Join(append([]string{what, verdict}, notes...), "; ")
}

func (r *Report) countSigs(status string) (n int) {
	for _, s := range r.Signatures {
		if s.Status == status {
			n++
		}
	}
	return n
}

// finish sorts the problems by path, keeping the order of each path's
// problems, and drops exact repeats.
func (r *Report) finish() {
	slices.SortStableFunc(r.Problems, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	r.Problems = slices.Compact(r.Problems)
	if r.Problems == nil {
		r.Problems = []Problem{}
	}
	if r.Signatures == nil {
		r.Signatures = []Signature{}
	}
}

// Dist verifies the bundle in the folder dir. The error is non-nil only
// when dir cannot be read at all; everything else is a Problem.
func Dist(ctx context.Context, dir string, o Options) (*Report, error) {
	src, err := bundle.OpenFolder(dir)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return run(ctx, src, o.withDefaults())
}

// URL verifies the bundle served at base, an http or https URL of the
// folder that holds .well-known/ (or of the v0.2 index itself), fetching
// files as a client would, starting at /.well-known/agent-skills/index.json.
// The error is non-nil when that index cannot be fetched at all.
func URL(ctx context.Context, base string, o Options) (*Report, error) {
	o = o.withDefaults()
	src, err := bundle.OpenURL(base, o.http())
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return run(ctx, src, o)
}
