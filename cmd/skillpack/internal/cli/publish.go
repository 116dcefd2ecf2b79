package cli

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/publish"
	"github.com/skillpack/skillpack/publish/oci"
)

// TargetFlags say how to reach a publish target and as whom: publish,
// build --publish and verify of a target declare the same flags.
type TargetFlags struct {
	Endpoint string
	Insecure bool
	Login    LoginFlags
}

// AddFlags declares the target flags on f.
func (t *TargetFlags) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&t.Endpoint, "endpoint", "", "S3: the server's `URL`, such as https://ACCOUNT.r2.cloudflarestorage.com (default: AWS S3)")
	f.BoolVar(&t.Insecure, "insecure", false, "allow plain http to a server that is not on this machine")
	t.Login.AddFlags(f)
}

// given reports whether any target flag was set.
func (t TargetFlags) given() bool {
	return t.Endpoint != "" || t.Insecure || t.Login.Username != "" || t.Login.PasswordStdin
}

// PublishFlags say how a bundle is published, beyond DIST, TARGET and a
// command's own --jobs, --dry-run and --json: a group that build declares too.
type PublishFlags struct {
	TargetFlags
	Prune bool
	Keep  int

	flags *pflag.FlagSet // where they were declared: whether --keep was given
}

// AddFlags declares the publish flags on f.
func (p *PublishFlags) AddFlags(f *pflag.FlagSet) {
	p.flags = f
	p.TargetFlags.AddFlags(f)
	f.BoolVar(&p.Prune, "prune", false, "S3 and file://: delete skillpack's objects that no kept release names")
	f.IntVar(&p.Keep, "keep", 0, fmt.Sprintf("with --prune: the releases whose objects are kept, the new one included (default %d)", publish.DefaultKeep))
}

// given reports whether any publish flag was set.
func (p PublishFlags) given() bool { return p.TargetFlags.given() || p.Prune || p.Keep != 0 }

type publishOptions struct {
	PublishFlags
	SignOptions
	Dist, Target string
	Jobs         int
	DryRun       bool
	JSON         bool
	Sign         bool

	done   *resultLog // what the run did, for the output; nil before it runs
	stderr io.Writer  // told what a retry waits for
}

// resultLog collects the results a run reports from its workers.
type resultLog struct {
	mu      sync.Mutex
	results []publish.Result
}

func (l *resultLog) add(r publish.Result) {
	l.mu.Lock()
	l.results = append(l.results, r)
	l.mu.Unlock()
}

func newPublishCmd(ios *IO, runF func(context.Context, *publishOptions) error) *cobra.Command {
	opts := &publishOptions{}
	cmd := &cobra.Command{
		Use:   "publish DIST TARGET",
		Short: "Publish a built bundle to S3-compatible storage, an OCI registry or a folder",
		Long: `Publish uploads a bundle that skillpack build wrote to S3-compatible storage
(s3://bucket/prefix; --endpoint for R2, GCS, MinIO, ...), an OCI registry
(oci://host[:port]/repo[:tag]) or a folder on this machine
(file:///path/to/folder, which skillpack verify reads as a folder).

It publishes in an order that keeps readers safe: archives first, then the
skills' files, the MCP documents, the indexes, and the build record last; a
run stopped part way is completed by running it again. Only what changed is
sent. --prune (S3, file://) deletes what none of the --keep newest releases needs;
--sign (OCI) signs the manifests as cosign sign does.

Credentials: --username with --password-stdin, else the AWS environment
(S3) or the Docker config (OCI). Plain http only to this machine, unless
--insecure. A server that keeps failing for a minute is exit 1.` + "\n\n" + docs("publish.md"),
		Example: `  skillpack publish dist s3://my-bucket/skills
  skillpack publish dist s3://skills --endpoint https://ACCOUNT.r2.cloudflarestorage.com --prune
  skillpack publish dist s3://skills --endpoint http://127.0.0.1:7070 --dry-run --json
  echo "$GITHUB_TOKEN" | skillpack publish dist oci://ghcr.io/OWNER/skills:v1 --username "$GITHUB_ACTOR" --password-stdin
  skillpack publish dist file:///srv/www/skills`,
		Args: reportArgs(twoArgs, &opts.JSON, func(err error) any { return newPublishJSON(opts, err) }),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dist, opts.Target = args[0], args[1]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPublish(cmd.Context(), ios, opts)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&opts.Jobs, "jobs", "j", 0, jobsHelp())
	f.BoolVar(&opts.DryRun, "dry-run", false, "say what would be uploaded and deleted; change nothing")
	f.BoolVar(&opts.JSON, "json", false, "print every object with its state as a JSON document on stdout, even on failure")
	f.BoolVar(&opts.Sign, "sign", false, "OCI: sign each skill's manifest and the index as cosign sign does (keyless, or --key)")
	opts.PublishFlags.AddFlags(f)
	opts.SignOptions.AddFlags(f)
	return cmd
}

// twoArgs is the check of publish's DIST and TARGET.
func twoArgs(cmd *cobra.Command, args []string) error {
	switch len(args) {
	case 2:
		return nil
	case 1:
		return usageOf(cmd, "%s takes DIST and TARGET; give the TARGET too, such as s3://bucket/prefix", cmd.Name())
	}
	return usageOf(cmd, "%s takes DIST and TARGET, not %d arguments", cmd.Name(), len(args))
}

func runPublish(ctx context.Context, ios *IO, opts *publishOptions) error {
	err := publishRun(ctx, ios, opts)
	return jsonResult(ios.Out, opts.JSON, newPublishJSON(opts, err), err)
}

// publishRun publishes DIST to TARGET, for publish and build --publish.
func publishRun(ctx context.Context, ios *IO, opts *publishOptions) error {
	if err := opts.check(); err != nil {
		return err
	}
	switch {
	case !opts.Sign && opts.SignOptions != (SignOptions{}):
		return usageErr("signing flags (--key, --identity-token, ...) need --sign")
	case opts.Sign && !targetOf(opts.Target).sign:
		return usageErr("--sign signs an OCI target's manifests; a %s target publishes the signatures skillpack build --sign wrote", targetOf(opts.Target).scheme)
	}
	if info, err := os.Stat(opts.Dist); err == nil && !info.IsDir() {
		return usageErr("%s is a file; give the folder skillpack build wrote (skillpack build -o dist, then publish dist)", opts.Dist)
	} else if err != nil {
		return usageErr("%s: no such folder; give the folder skillpack build wrote (skillpack build -o %s)", opts.Dist, opts.Dist)
	}
	b, err := publish.Open(opts.Dist)
	if err != nil {
		return usageErr("%w", err)
	}
	if err := opts.Login.read(ios.In); err != nil {
		return err
	}
	var signer oci.Signer
	if opts.Sign && !opts.DryRun {
		s, err := opts.newSigner(ctx, ios)
		if err != nil {
			return err
		}
		defer s.Close()
		signer = s.SignStatement
	}

	// An interrupt stops the run between requests: what is published
	// stays consistent, and the next run completes it.
	ctx, stop := interruptible(ctx, ios)
	defer stop()
	progress := ios.progress()
	if opts.JSON {
		progress = nil
	}
	opts.done, opts.stderr = &resultLog{}, ios.Err
	err = targetOf(opts.Target).publish(ctx, b, opts, signer, progress, opts.done.add)
	if !opts.JSON {
		printPublished(ios, opts, err)
	}
	if err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, errors.New("interrupted: the published indexes name only what is in place; run the same command again to complete the release"))
		}
		return &exitError{code: failedCode(err), err: err}
	}
	return nil
}

// check refuses flags that cannot work, a target that is not one and a
// flag its scheme does not take, before anything is read or sent.
func (opts *publishOptions) check() error {
	switch {
	case opts.Jobs < 0:
		return usageErr("--jobs %d: give a positive number", opts.Jobs)
	case opts.Keep < 0 || opts.Keep == 0 && opts.flags != nil && opts.flags.Changed("keep"):
		// 0 is the flag's unset value (DefaultKeep), not "keep none".
		return usageErr("--keep %d: give a positive number of releases", opts.Keep)
	case opts.Keep > 0 && !opts.Prune:
		return usageErr("--keep says how many releases --prune keeps; give --prune too, or leave --keep out")
	}
	t := targetOf(opts.Target)
	if t == nil {
		return usageErr("%s: give %s as the TARGET", opts.Target, targetExamples())
	}
	return t.check(opts)
}

// sortedResults are the results in publishing order: by stage, then path.
func (opts *publishOptions) sortedResults() []publish.Result {
	if opts.done == nil {
		return nil
	}
	opts.done.mu.Lock()
	defer opts.done.mu.Unlock()
	rs := slices.Clone(opts.done.results)
	slices.SortStableFunc(rs, func(a, b publish.Result) int {
		return cmp.Or(cmp.Compare(a.Object.Stage, b.Object.Stage), strings.Compare(a.Object.Path, b.Object.Path))
	})
	return rs
}

// tally counts results by state, and the bytes uploaded.
func tally(rs []publish.Result) (map[publish.State]int, int64) {
	n := map[publish.State]int{}
	var sent int64
	for _, r := range rs {
		n[r.State]++
		if r.State == publish.Uploaded {
			sent += r.Object.Size
		}
	}
	return n, sent
}

// printPublished prints what changed on stdout, a line an object ("uploaded
// PATH"; not those already present), and the tally on stderr.
func printPublished(ios *IO, opts *publishOptions, err error) {
	rs := opts.sortedResults()
	if len(rs) == 0 {
		if errors.Is(err, publish.ErrUnavailable) { // a request before the objects': the lease, a listing
			ios.Nextf("next: run the same command again once the server answers")
		}
		return
	}
	w := bufio.NewWriter(ios.Out)
	for _, r := range rs {
		switch r.State {
		case publish.Uploaded, publish.Deleted, publish.WouldUpload, publish.WouldDelete:
			fmt.Fprintf(w, "%s %s\n", r.State, r.Object.Path)
		}
	}
	w.Flush()
	n, sent := tally(rs)
	line := fmt.Sprintf("%s: %s", opts.Target, human.Plural(len(rs), "object"))
	for _, s := range []publish.State{publish.Uploaded, publish.Present, publish.Deleted, publish.WouldUpload, publish.WouldDelete, publish.Failed, publish.Skipped} {
		if n[s] > 0 {
			line += fmt.Sprintf(", %d %s", n[s], s)
			if s == publish.Uploaded {
				line += " (" + human.Bytes(sent) + ")"
			}
		}
	}
	ios.Infof("%s", line)
	// A failure that says its class (a file changed since the build) is
	// the user's to mend first: the same command would fail the same way.
	switch {
	case n[publish.Failed]+n[publish.Skipped] == 0 || errors.As(err, new(exitClasser)):
	case errors.Is(err, syscall.ENOSPC):
		ios.Nextf("next: free space on the disk, then run the same command again; it sends only what is not there yet")
	default:
		ios.Nextf("next: run the same command again; it sends only what is not there yet")
	}
}

// publishJSON is publish's --json document (schema/publish.schema.json).
type publishJSON struct {
	Source string `json:"source"`
	published
	status
}

// published is what a publish run did, in publish's --json document and
// in build --publish's (schema/publish.schema.json#/$defs/run).
type published struct {
	Target  string           `json:"target"`
	DryRun  bool             `json:"dryRun"`
	Objects []publish.Result `json:"objects"`
	Counts  publishCounts    `json:"counts"`
	Bytes   int64            `json:"bytes"` // uploaded
}

// publishCounts are the objects in each state.
type publishCounts struct {
	Uploaded    int `json:"uploaded"`
	Present     int `json:"present"`
	Deleted     int `json:"deleted"`
	WouldUpload int `json:"wouldUpload"`
	WouldDelete int `json:"wouldDelete"`
	Failed      int `json:"failed"`
	Skipped     int `json:"skipped"`
}

func newPublishJSON(opts *publishOptions, err error) publishJSON {
	return publishJSON{Source: opts.Dist, published: opts.published(), status: newStatus(err, "the publish failed")}
}

// published is what the run did, so far.
func (opts *publishOptions) published() published {
	rs := opts.sortedResults()
	n, sent := tally(rs)
	return published{
		Target:  opts.Target,
		DryRun:  opts.DryRun,
		Objects: nonNil(rs),
		Counts: publishCounts{
			Uploaded: n[publish.Uploaded], Present: n[publish.Present], Deleted: n[publish.Deleted],
			WouldUpload: n[publish.WouldUpload], WouldDelete: n[publish.WouldDelete],
			Failed: n[publish.Failed], Skipped: n[publish.Skipped],
		},
		Bytes: sent,
	}
}
