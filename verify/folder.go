package verify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/skillpack/skillpack/bundle"
	"github.com/skillpack/skillpack/layout"
)

// A skill folder's signature (skill.oms.sig, OpenSSF Model Signing) lists
// every file of the folder with its digest: in a bundle it is checked
// against the skill's served files, in an installed folder against the
// files on disk.

// StatementVerifier checks a folder signature, a Sigstore bundle whose
// DSSE envelope holds an in-toto statement, and returns the statement once
// it is by the expected identity or key (verify compares what it says). A
// SignatureVerifier that is also one (package sign's is) checks folder
// signatures too.
type StatementVerifier interface {
	VerifyStatement(bundleJSON []byte) (statement []byte, err error)
}

// folderSignatures checks each skill's folder signature among its served
// files (layout.FolderSignature): signed as the verifier asks, listing
// exactly the skill's files with the digests they were served with. The
// build signs folders and artifacts together, so in a bundle with no other
// signature they are not looked for (a request per skill over HTTP),
// unless signatures are required.
func (c *checker) folderSignatures() {
	if !c.o.RequireSignatures && c.rep.countSigs(SigMissing) == len(c.rep.Signatures) {
		return
	}
	var names, sigs []string
	for _, name := range c.names {
		// A skill's own skill.oms.sig (its author's) is one of its files.
		if s := c.skills[name]; !slices.Contains(s.files, layout.FolderSignatureFile) {
			names, sigs = append(names, name), append(sigs, layout.FolderSignature(name))
		}
	}
	sv, _ := c.o.Verifier.(StatementVerifier)
	payloads := make([][]byte, len(names))
	checked := make([]error, len(names))
	var one sync.Mutex // a verifier need not be safe for concurrent use
	sums := c.fetchHeld(sigs, func(i int, data []byte) {
		if sv != nil {
			one.Lock()
			payloads[i], checked[i] = sv.VerifyStatement(data)
			one.Unlock()
		}
	})
	for i, name := range names {
		sig := Signature{Artifact: layout.SkillDir(name), Bundle: layout.FolderSignature(name)}
		more := func() []string { return c.statementProblems(c.skills[name], payloads[i]) }
		c.outcome(sig, sums[i], sv != nil, checked[i], "folder signature", fmt.Sprintf("the folder of skill %q", name), more)
	}
}

// statementProblems compares a skill's verified statement with its served
// files: each file in the signed scope listed, with the digest it was
// served with, and nothing else.
func (c *checker) statementProblems(s *skillModel, payload []byte) []string {
	st, err := layout.DecodeStatement(payload)
	if err != nil {
		return []string{err.Error()}
	}
	const fix = "sign the bundle again (skillpack sign) after changing a skill"
	var out []string
	signed := st.Files()
	for _, f := range s.files {
		if !layout.InSignedScope(f) {
			continue
		}
		d, ok := signed[f]
		served := s.served[f]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("does not list %q, a file of skill %q (%s); %s", clipped(f), s.name, s.filesFrom, fix))
		case served != nil && served.digest != d:
			out = append(out, fmt.Sprintf("gives %q the digest %s, but %s has %s; %s", clipped(f), d, layout.SkillFile(s.name, f), served.digest, fix))
		}
	}
	for _, f := range slices.Sorted(maps.Keys(signed)) {
		if !slices.Contains(s.files, f) || !layout.InSignedScope(f) {
			out = append(out, fmt.Sprintf("lists %q, which is not a file of skill %q (%s); %s", clipped(f), s.name, s.filesFrom, fix))
		}
	}
	return out
}

// IsSkillFolder reports whether dir looks like a skill folder rather than
// a bundle: no build record and no .well-known tree, and a SKILL.md or a
// folder signature at its root.
func IsSkillFolder(dir string) bool {
	has := func(p string) bool {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
		return err == nil
	}
	return !has(layout.BuildRecord) && !has(".well-known") && (has(layout.EntryFile) || has(layout.FolderSignatureFile))
}

// Folder verifies a skill folder as an installer left it against the
// folder signature at signature (default: skill.oms.sig in dir), which
// o.Verifier, a StatementVerifier, must find by the identity or key asked
// for. Its statement must list exactly the folder's files, each with the
// digest of its bytes on disk: a file missing, added or changed is a
// Problem naming it. Paths OMS leaves out (.git, .gitignore,
// .gitattributes, .github at the top), those its ignore_paths name, and the
// signature itself are not compared. The folder is read through an
// os.Root, so no link leads outside it. The error is non-nil only when the
// check cannot start.
func Folder(ctx context.Context, dir, signature string, o Options) (*Report, error) {
	o = o.withDefaults()
	sv, ok := o.Verifier.(StatementVerifier)
	if !ok {
		return nil, errors.New("a skill folder is verified by its signature: give a verifier (--certificate-identity and --certificate-oidc-issuer, or --key)")
	}
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return nil, fmt.Errorf("%s: no such folder", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	ctx, cancel := context.WithTimeoutCause(ctx, o.Deadline, errDeadline)
	defer cancel()

	// The signature's name inside the folder, which the walk leaves out.
	sigName, sigFile := layout.FolderSignatureFile, filepath.Join(dir, layout.FolderSignatureFile)
	if signature != "" {
		sigFile, sigName = signature, ""
		if rel, err := filepath.Rel(dir, signature); err == nil && filepath.IsLocal(rel) {
			sigName = filepath.ToSlash(rel)
		}
	}
	c := &folderCheck{checker: &checker{ctx: ctx, o: o, rep: &Report{Source: dir}}, root: root, sigName: sigName}
	c.rep.Checked.Skills = 1
	label := cmp.Or(sigName, signature)
	sig := Signature{Artifact: ".", Bundle: label, Status: SigInvalid}
	defer func() { c.rep.Signatures = append(c.rep.Signatures, sig); c.rep.finish() }()
	// fail reports why the signature does not vouch for the folder.
	fail := func(format string, err error) (*Report, error) {
		sig.Error = err.Error()
		c.problem(label, format, err)
		return c.rep, nil
	}

	data, err := readLimited(sigFile, o.MaxSize)
	switch {
	case errors.Is(err, fs.ErrNotExist) && signature == "":
		sig.Status = SigMissing
		c.problem(label, "missing: the folder has no %s; fetch the one the bundle serves beside the skill's files (.well-known/agent-skills/<name>/%s) into it, or give its path with --signature", layout.FolderSignatureFile, layout.FolderSignatureFile)
		return c.rep, nil
	case err != nil:
		return fail("cannot be read: %v", err)
	}
	payload, err := sv.VerifyStatement(data)
	if err != nil {
		return fail("does not verify: %v", err)
	}
	st, err := layout.DecodeStatement(payload)
	if err != nil {
		return fail("%v", err)
	}
	c.compare(st)
	if c.rep.OK() {
		sig.Status = SigVerified
		c.rep.Checked.Signatures++
	} else {
		sig.Error = "the folder does not match the signed statement"
	}
	if errors.Is(context.Cause(ctx), errDeadline) {
		c.problem(".", "the check took longer than --deadline %v; the rest went unchecked", o.Deadline)
		return c.rep, nil // a problem in the report
	}
	return c.rep, ctx.Err()
}

// folderCheck is one Folder check: a checker (context, options, report).
type folderCheck struct {
	*checker
	root    *os.Root
	sigName string // the signature's path inside the folder, or ""
}

// compare walks the folder and holds every file against the statement.
func (c *folderCheck) compare(st *layout.Statement) {
	want := st.Files()
	seen := map[string]bool{}
	const reinstall = "reinstall the skill, or fetch the signature that goes with these files"
	err := fs.WalkDir(c.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if cerr := c.ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			c.problem(p, "cannot be read: %v", err)
			return nil
		}
		if p == "." || p == c.sigName {
			return nil
		}
		_, listed := want[p]
		if d.IsDir() {
			if st.Ignored(p) && !hasListedUnder(want, p) {
				return fs.SkipDir // .git, say: nothing in it is signed
			}
			return nil
		}
		if !listed && st.Ignored(p) {
			return nil
		}
		typ := d.Type()
		if typ&fs.ModeSymlink != 0 {
			if !st.Predicate.Serialization.AllowSymlinks {
				c.problem(p, "is a symbolic link, and the signature covers regular files only (allow_symlinks is false); replace it with the file, or %s", reinstall)
				return nil
			}
			info, err := c.root.Stat(p)
			if err != nil {
				c.problem(p, "is a symbolic link that leads outside the folder or nowhere; replace it with the file")
				return nil
			}
			typ = info.Mode().Type()
		}
		if !typ.IsRegular() {
			c.problem(p, "is not a regular file (%v); a skill folder holds files only", typ)
			return nil
		}
		if !listed {
			c.problem(p, "is not in the signed statement: a file added after signing; remove it, or %s", reinstall)
			return nil
		}
		seen[p] = true
		got, err := c.hashFile(p)
		switch {
		case err != nil:
			c.problem(p, "cannot be read: %v", err)
		case got != want[p]:
			c.problem(p, "has digest %s, but the signature says %s: the file changed after signing; %s", got, want[p], reinstall)
		default:
			c.rep.Checked.Files++
		}
		return nil
	})
	if err != nil && !errors.Is(err, context.Cause(c.ctx)) && c.ctx.Err() == nil {
		c.problem(".", "cannot be listed: %v", err)
	}
	if c.ctx.Err() != nil {
		return
	}
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if !seen[p] {
			c.problem(p, "is missing: the signature lists it with digest %s; %s", want[p], reinstall)
		}
	}
}

// hasListedUnder reports whether the statement lists a file in folder p.
func hasListedUnder(want map[string]layout.Digest, p string) bool {
	for f := range want {
		if strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

// hashFile is the digest of a file of the folder, read as a stream.
func (c *folderCheck) hashFile(p string) (layout.Digest, error) {
	f, err := c.root.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	d, _, err := bundle.Hash(ctxReader{c.ctx, f})
	return d, err
}

// ctxReader stops a read when the check's deadline passes.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}

func readLimited(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(&bundle.LimitReader{R: f, Limit: max})
}
