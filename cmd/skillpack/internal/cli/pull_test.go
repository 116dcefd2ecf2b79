package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpack/skillpack/internal/testtool"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/pack"
	"github.com/skillpack/skillpack/publish"
	"github.com/skillpack/skillpack/publish/oci"
	"github.com/skillpack/skillpack/verify"
)

func TestPullFlags(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want pullOptions
	}{
		{argv: []string{"oci://ghcr.io/o/skills"}, want: pullOptions{
			Source: "oci://ghcr.io/o/skills", Out: ".", Deadline: verify.DefaultDeadline,
			Options: oci.Options{Retry: publish.Retry{Timeout: verify.DefaultTimeout}, MaxTotal: oci.DefaultMaxTotal},
		}},
		{
			argv: []string{"oci://127.0.0.1:5000/s:v1", "-o", "out", "--skill", "pdf", "--insecure", "--username", "u", "--password-stdin", "--timeout", "5s", "--deadline", "1m", "--max-total", "10MiB"},
			want: pullOptions{
				Source: "oci://127.0.0.1:5000/s:v1", Out: "out", Skill: "pdf", Login: LoginFlags{Username: "u", PasswordStdin: true}, Deadline: time.Minute,
				Options: oci.Options{Insecure: true, Retry: publish.Retry{Timeout: 5 * time.Second}, MaxTotal: 10 << 20},
			},
		},
	} {
		var opts *pullOptions
		parse(t, newPullCmd(&IO{}, func(_ context.Context, o *pullOptions) error { opts = o; return nil }), tc.argv)
		if !reflect.DeepEqual(opts, &tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.argv, *opts, tc.want)
		}
	}
	// A bound that bounds nothing is a usage error, before any request.
	for _, argv := range [][]string{{"--timeout", "0s"}, {"--deadline", "-1s"}, {"--max-total", "0"}} {
		ios, _, errb := fakeIO(nil)
		if code := run(ios, append([]string{"pull", "oci://ghcr.io/o/skills"}, argv...)); code != ExitUsage || !strings.Contains(errb.String(), argv[0]) {
			t.Errorf("%v: exit %d, %s", argv, code, errb)
		}
	}
}

// skillpack pull gets back, from a registry, the skills skillpack publish
// pushed there, each in a folder of its name; it does not overwrite one,
// and refuses a source that is not an OCI reference.
func TestPullRun(t *testing.T) {
	host := testtool.Registry(t, "")
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	target := "oci://" + host + "/acme/skills:v1"
	for _, argv := range [][]string{{"build", "../../../../examples", "-o", dist}, {"publish", dist, target}} {
		ios, _, errb := fakeIO(nil)
		if code := run(ios, argv); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", argv, code, errb)
		}
	}

	// publish --json to a registry: the document of a rerun (all present)
	// and of a dry run to another, empty registry (all would-upload) are
	// what the schema says.
	schemas, err := filepath.Abs(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	other := "oci://" + testtool.Registry(t, "") + "/acme/other"
	for _, argv := range [][]string{{"publish", dist, target, "--json"}, {"publish", dist, other, "--json", "--dry-run"}} {
		ios, stdout, errb := fakeIO(nil)
		code := run(ios, argv)
		if err := validateDoc(schemas, "publish.schema.json", stdout.Bytes(), code); err != nil || code != ExitOK {
			t.Errorf("%v: exit %d, %v\n%s", argv, code, err, errb)
		}
		want := `"present": 0,`
		if argv[2] == target {
			want = `"uploaded": 0,`
		}
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("%v: no %s in\n%s", argv, want, stdout)
		}
	}

	out := filepath.Join(tmp, "skills")
	ios, stdout, errb := fakeIO(nil)
	if code := run(ios, []string{"pull", target, "-o", out}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var want strings.Builder
	for _, name := range []string{"commit-messages", "csv-profiler", "github-rest-api", "release-notes", "repo-hygiene"} {
		want.WriteString("pulled " + name + " " + filepath.Join(out, name) + "\n")
		if _, err := os.Stat(filepath.Join(out, name, "SKILL.md")); err != nil {
			t.Error(err)
		}
	}
	if stdout.String() != want.String() || errb.String() != target+": 5 skills\n" {
		t.Errorf("stdout:\n%s\nwant:\n%s\nstderr: %q", stdout, want.String(), errb)
	}

	for _, tc := range []struct {
		argv []string
		code int
		err  string
	}{
		{[]string{"pull", target, "-o", out, "--skill", "csv-profiler"}, ExitUsage, "already exists"},
		{[]string{"pull", "oci://" + host + "/acme/skills:release-notes-1.2.0", "-o", filepath.Join(tmp, "one")}, ExitOK, ""},
		{[]string{"pull", "ghcr.io/acme/skills", "-o", out}, ExitUsage, "not an OCI source"},
		{[]string{"pull", "oci://" + host + "/acme/nothing", "-o", out}, ExitFindings, "not found"},
	} {
		ios, _, errb := fakeIO(nil)
		if code := run(ios, tc.argv); code != tc.code || !strings.Contains(errb.String(), tc.err) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.argv, code, errb, tc.code, tc.err)
		}
	}
}

// hostileRegistry is a registry on loopback that answers as a hostile one
// would: the manifests and blobs a test gives it, by the path under
// /v2/acme/skills/, with the headers given, a body longer than it has
// (repeated to length), or one byte a second. It counts the body bytes it
// got out.
type hostileRegistry struct {
	host    string
	sent    atomic.Int64
	objects map[string]hostileObject
}

type hostileObject struct {
	mediaType string
	digest    string // Docker-Content-Digest, if not ""
	body      []byte
	length    int    // Content-Length, when more than the body: the body repeats
	trickle   bool   // a byte a second
	link      string // a Link header: the next page of a listing
}

func startHostile(t *testing.T) *hostileRegistry {
	t.Helper()
	h := &hostileRegistry{objects: map[string]hostileObject{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o, ok := h.objects[strings.TrimPrefix(r.URL.Path, "/v2/acme/skills/")]
		switch {
		case r.URL.Path == "/v2/":
			return
		case !ok:
			http.Error(w, `{"errors":[{"code":"MANIFEST_UNKNOWN","message":"unknown"}]}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", o.mediaType)
		if o.digest != "" {
			w.Header().Set("Docker-Content-Digest", o.digest)
		}
		if o.link != "" {
			w.Header().Set("Link", o.link)
		}
		size := max(o.length, len(o.body))
		w.Header().Set("Content-Length", strconv.Itoa(size))
		if r.Method == http.MethodHead {
			return
		}
		w.WriteHeader(http.StatusOK)
		for i := 0; i < size; {
			chunk := o.body[i%len(o.body):]
			if o.trickle {
				chunk = chunk[:1]
			}
			n, err := w.Write(chunk[:min(len(chunk), size-i)])
			h.sent.Add(int64(n))
			i += n
			if err != nil {
				return
			}
			if o.trickle {
				w.(http.Flusher).Flush()
				select {
				case <-time.After(time.Second):
				case <-r.Context().Done():
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	h.host = strings.TrimPrefix(srv.URL, "http://")
	return h
}

// add serves data as a blob, and returns its descriptor.
func (h *hostileRegistry) add(mediaType string, data []byte) ocispec.Descriptor {
	d := ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(data), Size: int64(len(data))}
	h.objects["blobs/"+d.Digest.String()] = hostileObject{mediaType: mediaType, body: data}
	return d
}

// manifest serves v as a manifest by its digest and by tag, if not "".
func (h *hostileRegistry) manifest(tag string, v any) ocispec.Descriptor {
	data, _ := json.Marshal(v)
	mediaType := ocispec.MediaTypeImageManifest
	if _, ok := v.(ocispec.Index); ok {
		mediaType = ocispec.MediaTypeImageIndex
	}
	d := ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(data), Size: int64(len(data))}
	o := hostileObject{mediaType: mediaType, digest: d.Digest.String(), body: data}
	h.objects["manifests/"+d.Digest.String()] = o
	if tag != "" {
		h.objects["manifests/"+tag] = o
	}
	return d
}

// skill serves a skill's manifest whose archive is layer.
func (h *hostileRegistry) skill(name string, layer ocispec.Descriptor) ocispec.Descriptor {
	d := h.manifest("", ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
		ArtifactType: oci.ArtifactTypeSkill, Config: h.add(oci.MediaTypeSkillConfig, []byte(`{}`)),
		Layers: []ocispec.Descriptor{layer}, Annotations: map[string]string{"io.agentskills.skill.name": name},
	})
	d.Annotations = map[string]string{"io.agentskills.skill.name": name}
	return d
}

// collection serves the skills' collection at tag.
func (h *hostileRegistry) collection(tag string, skills ...ocispec.Descriptor) {
	h.manifest(tag, ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex,
		ArtifactType: oci.ArtifactTypeCollection, Manifests: skills,
	})
}

// archive is a skill's .tar.gz, as skillpack packs one, of SKILL.md and
// a file of n zero bytes (gzip makes a thousandth of that) or of noise.
func archive(t *testing.T, n int, noise bool) []byte {
	t.Helper()
	data := make([]byte, n)
	if noise {
		mrand.NewChaCha8([32]byte{1}).Read(data)
	}
	return tarGz(t, map[string][]byte{"SKILL.md": []byte("---\nname: x\n---\n"), "data.bin": data})
}

// tarGz packs files with pack, as the build does.
func tarGz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, nil, pack.Options{})
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if _, err := w.Add(name, false, int64(len(files[name])), bytes.NewReader(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// maxRSS is twice the memory a pull or a verify of a registry documents
// (an archive or a document of pack.MaxFile held whole), which a
// skillpack facing a hostile registry must stay under.
const maxRSS = 2 * pack.MaxFile

// runChild runs skillpack as a process of its own (this test binary,
// which testscript.Main put on PATH as skillpack), so that its peak
// memory is its own: the exit code, stderr, and the peak RSS in bytes (0
// where it is not measured).
func runChild(t *testing.T, args ...string) (code int, stderr string, rss int64) {
	t.Helper()
	bin, err := exec.LookPath("skillpack")
	if err != nil {
		t.Fatal(err)
	}
	hwm := filepath.Join(t.TempDir(), "hwm")
	var errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &errb
	cmd.Env = append(os.Environ(), "SKILLPACK_TEST_HWM="+hwm)
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(hwm); err == nil {
		rss, _ = strconv.ParseInt(string(data), 10, 64)
	}
	return cmd.ProcessState.ExitCode(), errb.String(), rss
}

// du is the bytes of the files under dir.
func du(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// A registry that keeps failing ends a pull with exit 1 once the retries'
// budget is spent, saying what it waited for.
func TestPullOutageExitCode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	src := "oci://" + strings.TrimPrefix(srv.URL, "http://") + "/acme/skills:v1"
	var log bytes.Buffer
	ctx := context.Background()
	_, err := oci.Pull(ctx, src, t.TempDir(), "", oci.Options{Retry: publish.Retry{Backoff: time.Millisecond, Budget: 50 * time.Millisecond, Log: &log}})
	if code, msg := exitStatus(pullErr(ctx, &pullOptions{}, err)); code != ExitFindings || !strings.Contains(msg, "the server kept failing") {
		t.Errorf("a registry answering 503: exit %d (%q), want %d", code, msg, ExitFindings)
	}
	if !strings.Contains(log.String(), "pull: waiting for "+src+": ") {
		t.Errorf("stderr says %q", log.String())
	}
}

// A hostile registry cannot make pull read, write or wait without bound:
// a manifest over 4 MiB by tag (with Docker-Content-Digest, which oras-go
// takes for the size), a body a byte a second (--timeout, and --deadline
// over the whole pull), eight skills sharing one archive that unpacks a
// thousandfold, more than --max-total, digests that are lies, a skill
// listed twice. Each exits 1, names what it refused and the limit, and
// leaves no folder of a refused skill; each pull, a process of its own,
// stays under twice the documented memory (maxRSS).
func TestPullHostileRegistry(t *testing.T) {
	h := startHostile(t)
	src := "oci://" + h.host + "/acme/skills:"

	h.objects["manifests/huge"] = hostileObject{mediaType: ocispec.MediaTypeImageIndex, digest: string(digest.FromString("huge")), body: []byte(`{"manifests":[`), length: 200 << 20}
	h.objects["manifests/slow"] = hostileObject{mediaType: ocispec.MediaTypeImageIndex, body: []byte(`{"schemaVersion":2}`), trickle: true}

	shared := h.add(oci.MediaTypeSkillContent, archive(t, 20<<20, false))
	var eight []ocispec.Descriptor
	for i := range 8 {
		eight = append(eight, h.skill(fmt.Sprintf("s%d", i), shared))
	}
	h.collection("shared", eight...)

	h.collection("total", h.skill("a", h.add(oci.MediaTypeSkillContent, archive(t, 600<<10, true))), h.skill("b", h.add(oci.MediaTypeSkillContent, archive(t, 700<<10, true))))

	lie := h.manifest("", ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, ArtifactType: oci.ArtifactTypeCollection})
	h.objects["manifests/lie"] = hostileObject{mediaType: ocispec.MediaTypeImageIndex, digest: string(digest.FromString("other")), body: h.objects["manifests/"+string(lie.Digest)].body}
	good := archive(t, 0, false)
	bad := h.add(oci.MediaTypeSkillContent, good)
	changed := bytes.Clone(good)
	changed[len(changed)/2] ^= 1
	h.objects["blobs/"+string(bad.Digest)] = hostileObject{mediaType: bad.MediaType, body: changed}
	h.collection("badblob", h.skill("c", bad))

	one := h.skill("d", h.add(oci.MediaTypeSkillContent, archive(t, 10, true)))
	h.collection("twice", one, one)

	// More skills than a bundle may have, in a manifest under 4 MiB.
	var many []ocispec.Descriptor
	for i := range layout.MaxSkills + 1 {
		many = append(many, ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString(strconv.Itoa(i)), Size: 1})
	}
	h.collection("many", many...)

	// A listing of referrers whose next page is itself, without end.
	endless := h.skill("e", h.add(oci.MediaTypeSkillContent, archive(t, 10, false)))
	h.collection("referrers", endless)
	var page ocispec.Index
	for i := range 600 {
		page.Manifests = append(page.Manifests, ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: oci.ArtifactTypeFolderSignature, Digest: digest.FromString(strconv.Itoa(i)), Size: 1})
	}
	pageJSON, _ := json.Marshal(page)
	h.objects["referrers/"+string(endless.Digest)] = hostileObject{mediaType: ocispec.MediaTypeImageIndex, body: pageJSON, link: `</v2/acme/skills/referrers/` + string(endless.Digest) + `?next=1>; rel="next"`}

	// The shared archive unpacks a thousandfold, as deflate can: within
	// the limits of one archive, it is pulled once, and refused after.
	q := regexp.QuoteMeta
	for _, tc := range []struct {
		tag   string
		flags []string
		err   string // a regular expression
	}{
		{"huge", nil, q("oci://" + h.host + "/acme/skills:huge: the registry sends a manifest of 209715200 bytes for huge, more than the 4194304 a manifest may be")},
		// Each try times out, and is retried until the deadline.
		{"slow", []string{"--timeout", "1s", "--deadline", "4s"}, q("pull: waiting for "+src+"slow: no answer ") + "(in time after|within) 1s" + "(?s:.*)" + q("the pull took longer than --deadline 4s")},
		{"slow", []string{"--deadline", "1s"}, q("the pull took longer than --deadline 1s")},
		{"shared", nil, q("@" + string(eight[1].Digest) + ": skill s1's archive " + string(shared.Digest) + " is skill s0's; a bundle's skills never share one")},
		{"total", []string{"--max-total", "1MiB"}, q(`skill b's archive: "data.bin" is 716800 bytes: the pull would unpack more than 1048576 bytes, every skill together (the limit)`)},
		{"lie", nil, q("oci://" + h.host + "/acme/skills:lie: the registry sends a manifest for lie whose bytes are not its digest " + digest.FromString("other").String())},
		{"badblob", nil, q("skill c's archive "+string(bad.Digest)+": ") + ".*digest"},
		{"twice", nil, q("skill d is listed twice")},
		{"many", nil, q("oci://" + h.host + "/acme/skills:many lists 10001 skills, more than the 10000 a bundle may have (the limit); not pulled")},
		{"referrers", []string{"--deadline", "1m"}, q("skill e's folder signature: " + string(endless.Digest) + " has more than 1000 referrers of type " + oci.ArtifactTypeFolderSignature)},
	} {
		before := h.sent.Load()
		out := t.TempDir()
		code, errb, rss := runChild(t, append([]string{"pull", src + tc.tag, "-o", out}, tc.flags...)...)
		if code != ExitFindings || !regexp.MustCompile(tc.err).MatchString(errb) {
			t.Errorf("%s %v: exit %d, %s\nwant exit 1 and %q", tc.tag, tc.flags, code, errb, tc.err)
		}
		if rss > maxRSS {
			t.Errorf("%s %v: peak RSS %d bytes, over %d", tc.tag, tc.flags, rss, maxRSS)
		}
		t.Logf("%s %v: peak RSS %.1f MiB, %d bytes sent, %d written", tc.tag, tc.flags, float64(rss)/(1<<20), h.sent.Load()-before, du(t, out))
		if sent := h.sent.Load() - before; sent > 32<<20 {
			t.Errorf("%s: the registry got %d bytes out", tc.tag, sent)
		}
		if n := du(t, out); n > 20<<20+4096 {
			t.Errorf("%s: wrote %d bytes", tc.tag, n)
		}
	}
}

// Ctrl-C during a pull ends it with exit 130, the shell's code for a
// command an interrupt stopped, not 3 (skillpack's own failure), and says
// what it left. The registry holds the first request until the signal is
// sent, so that the pull is surely under way.
func TestPullInterrupted(t *testing.T) {
	arrived, done := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-done
	}))
	defer srv.Close()
	defer close(done)
	bin, err := exec.LookPath("skillpack")
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd := exec.Command(bin, "pull", "oci://"+strings.TrimPrefix(srv.URL, "http://")+"/acme/skills:v1", "-o", t.TempDir())
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the pull sent no request in a minute")
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("an interrupted pull: exit %d, stderr %q; want %d, saying it was interrupted", code, errb.String(), ExitInterrupted)
	}
}

// An error that says its class keeps it: the registry's refusal of a
// login is the user's to mend (2), where pull said 1 as for any fetch.
func TestPullErrClass(t *testing.T) {
	err := pullErr(context.Background(), &pullOptions{}, fmt.Errorf("oci://r/x: %w", publish.Refused{Err: errors.New("401"), Class: 2}))
	if code, _ := exitStatus(err); code != ExitUsage {
		t.Errorf("a refused login: exit %d, want %d", code, ExitUsage)
	}
	if code, _ := exitStatus(pullErr(context.Background(), &pullOptions{}, errors.New("a blob's digest differs"))); code != ExitFindings {
		t.Errorf("a failed fetch: exit %d, want %d", code, ExitFindings)
	}
}
