package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/publish"
	"github.com/skillpack/skillpack/publish/file"
	"github.com/skillpack/skillpack/publish/oci"
	"github.com/skillpack/skillpack/publish/s3"
	"github.com/skillpack/skillpack/verify"
)

// A target is a publish scheme and everything the commands do with it:
// adding one is a package under publish/ and a row of targets.
type target struct {
	scheme  string // "s3://"
	example string // the TARGET as messages show it
	sign    bool   // it takes publish --sign (its manifests are signed)
	jobs    int    // its requests at once without --jobs (the package's default)
	// check parses TARGET and refuses a flag the scheme does not take,
	// before anything is read.
	check func(opts *publishOptions) error
	// publish publishes b; sign signs the manifests with --sign.
	publish func(ctx context.Context, b *publish.Upload, opts *publishOptions, sign oci.Signer, progress io.Writer, report func(publish.Result)) error
	// store reads what the target holds for verify (a Store; see
	// verify.Objects), with the flags verify was given; its errors are
	// the user's (exit 2).
	store func(opts *verifyOptions, v verify.SignatureVerifier) (bundle.Store, error)
	// folder is the folder on this machine TARGET names, which --previous
	// reads as a folder; nil for a target that is none.
	folder func(target string) (string, error)
}

// targets are the publish targets, in the order messages list them.
var targets = []*target{
	{scheme: s3.Scheme, example: "s3://bucket/prefix", jobs: s3.DefaultJobs, check: checkS3, publish: publishS3, store: s3Store},
	{scheme: oci.Scheme, example: "oci://host/repo[:tag]", sign: true, jobs: publish.DefaultJobs, check: checkOCI, publish: publishOCI, store: ociStore},
	{scheme: file.Scheme, example: "file:///path/to/folder", jobs: publish.DefaultJobs, check: checkFile, publish: publishFile, store: fileStore, folder: file.ParseTarget},
}

// targetOf is the target whose scheme loc has, or nil.
func targetOf(loc string) *target {
	for _, t := range targets {
		if strings.HasPrefix(loc, t.scheme) {
			return t
		}
	}
	return nil
}

// targetExamples lists the targets as messages offer them: "a, b or c".
func targetExamples() string {
	ex := make([]string, len(targets))
	for i, t := range targets {
		ex[i] = t.example
	}
	return orList(ex)
}

// jobsHelp is --jobs' help, with each target's default.
func jobsHelp() string {
	ex := make([]string, len(targets))
	for i, t := range targets {
		ex[i] = fmt.Sprintf("%d for %s", t.jobs, t.scheme)
	}
	return "requests at once (default " + strings.Join(ex, ", ") + ")"
}

// s3 and oci are the target flags as the packages take them.
func (t TargetFlags) s3() s3.Options {
	return s3.Options{Endpoint: t.Endpoint, Insecure: t.Insecure, AccessKey: t.Login.Username, SecretKey: t.Login.password}
}

func (t TargetFlags) oci() (oci.Options, error) {
	if t.Endpoint != "" {
		return oci.Options{}, usageErr("--endpoint is for s3:// targets; an oci:// target names its registry itself")
	}
	return oci.Options{Insecure: t.Insecure, Username: t.Login.Username, Password: t.Login.password}, nil
}

func checkS3(opts *publishOptions) error {
	if _, err := s3.ParseTarget(opts.Target); err != nil {
		return usageErr("%w", err)
	}
	o := opts.s3()
	o.SecretKey = o.AccessKey // the password is read later; LoginFlags checks the pair
	if err := o.Check(); err != nil {
		return usageErr("%w", err)
	}
	return nil
}

func publishS3(ctx context.Context, b *publish.Upload, opts *publishOptions, _ oci.Signer, progress io.Writer, report func(publish.Result)) error {
	o := opts.s3()
	o.DryRun, o.Prune, o.Keep = opts.DryRun, opts.Prune, opts.Keep
	o.Retry = publish.Retry{Jobs: opts.Jobs}
	o.Progress, o.Log = progress, opts.stderr
	return s3.Publish(ctx, b, opts.Target, o, report)
}

func s3Store(opts *verifyOptions, _ verify.SignatureVerifier) (bundle.Store, error) {
	o := opts.Target.s3()
	if err := o.Check(); err != nil {
		return nil, err
	}
	return s3.OpenBucket(opts.Source, o)
}

func checkOCI(opts *publishOptions) error {
	if _, err := oci.ParseTarget(opts.Target); err != nil {
		return usageErr("%w", err)
	}
	if _, err := opts.oci(); err != nil {
		return err
	}
	if opts.Prune {
		return usageErr("--prune is for s3:// and file:// targets; a registry removes what no tag names by its own garbage collection")
	}
	return nil
}

func publishOCI(ctx context.Context, b *publish.Upload, opts *publishOptions, sign oci.Signer, progress io.Writer, report func(publish.Result)) error {
	o, _ := opts.oci() // checked by checkOCI
	o.Retry = publish.Retry{Jobs: opts.Jobs, Progress: progress, Log: opts.stderr}
	o.DryRun, o.Sign = opts.DryRun, sign
	return oci.Publish(ctx, b, opts.Target, o, report)
}

// ociStore is a registry's reader, which checks the manifests' own
// signatures with v when it checks statements.
func ociStore(opts *verifyOptions, v verify.SignatureVerifier) (bundle.Store, error) {
	o, err := opts.Target.oci()
	if err != nil {
		return nil, err
	}
	o.Retry = publish.Retry{Jobs: opts.Jobs, Timeout: opts.Timeout} // each request, Check's included
	if sv, ok := v.(verify.StatementVerifier); ok {
		o.VerifyStatement = sv.VerifyStatement
	}
	return oci.OpenStore(opts.Source, o, cmp.Or(opts.MaxSkills, verify.DefaultMaxSkills))
}

func checkFile(opts *publishOptions) error {
	if _, err := file.Open(opts.Target); err != nil { // a file there too
		return usageErr("%w", err)
	}
	if opts.TargetFlags.given() {
		return usageErr("--endpoint, --insecure, --username and --password-stdin are for s3:// and oci:// targets; a file:// target is a folder on this machine")
	}
	return nil
}

func publishFile(ctx context.Context, b *publish.Upload, opts *publishOptions, _ oci.Signer, progress io.Writer, report func(publish.Result)) error {
	return file.Publish(ctx, b, opts.Target, file.Options{DryRun: opts.DryRun, Prune: opts.Prune, Keep: opts.Keep,
		Retry: publish.Retry{Jobs: opts.Jobs, Progress: progress}}, report)
}

func fileStore(opts *verifyOptions, _ verify.SignatureVerifier) (bundle.Store, error) {
	if opts.Target.given() {
		return nil, usageErr("%s: give file:///path/to/folder, with no --endpoint, --insecure or login flags", opts.Source)
	}
	return file.Open(opts.Source)
}
