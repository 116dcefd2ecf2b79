package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpack/skillpack/verify"
)

// token is what the private server below wants; no output may print it.
const token = "s3cr3t-t0ken"

func TestVerifyRequestHeader(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/token.txt"
	if err := os.WriteFile(file, []byte("\n  "+token+" \r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := &verifyOptions{Auth: HTTPAuth{Headers: []string{"x-api-key:  k1 ", "X-Api-Key:k2", "Accept: application/json"}, TokenFile: file}}
	got, err := opts.Auth.Header()
	if err != nil {
		t.Fatal(err)
	}
	want := http.Header{"X-Api-Key": {"k1", "k2"}, "Accept": {"application/json"}, "Authorization": {"Bearer " + token}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, err := (&HTTPAuth{}).Header(); got != nil || err != nil {
		t.Errorf("no flags: %v, %v; want nothing", got, err)
	}

	// A line break would end the header and start another: header
	// injection. The scripts cannot spell one.
	for _, h := range []string{"X-Key: " + token + "\r\nX-Evil: 1", "X-Key: " + token + "\n", "X-Key: a\x00" + token, "X\r\nKey: " + token} {
		_, err := (&HTTPAuth{Headers: []string{h}}).Header()
		code, msg := exitStatus(err)
		if code != ExitUsage || !strings.Contains(msg, "give it as 'Name: value'") {
			t.Errorf("%q: exit %d, %q; want a usage error with the right form", h, code, msg)
		}
		if strings.Contains(msg, token) {
			t.Errorf("%q: the message prints the value: %s", h, msg)
		}
	}
}

func TestVerifyTokenFile(t *testing.T) {
	file := t.TempDir() + "/token.txt"
	for body, want := range map[string]string{
		" \n\t\n":                     "the file holds no token",
		"# ours\n":                    "the file holds no token",
		"Bearer " + token:             "line 1 starts with 'Bearer '",
		token + "\x01":                "is printable ASCII without spaces",
		"t\u00f6k" + token:            "is printable ASCII without spaces",
		token + "\t" + token:          "line 1: a token is printable ASCII without spaces",
		token + "\r\n" + token + "\n": "the file holds 2 tokens; a request sends one",
	} {
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := (&HTTPAuth{TokenFile: file}).Header()
		code, msg := exitStatus(err)
		if code != ExitUsage || !strings.HasPrefix(msg, "--token-file "+file+": ") || !strings.Contains(msg, want) {
			t.Errorf("%q: exit %d, %q; want a usage error naming the file and %q", body, code, msg, want)
		}
		if strings.Contains(msg, token) {
			t.Errorf("%q: the message prints the token: %s", body, msg)
		}
	}
}

// TestVerifyPrivateURL runs verify against a server that wants a bearer
// token for every file, as a private registry does.
func TestVerifyPrivateURL(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	writeSkills(t, map[string]string{
		"skills/good/SKILL.md": cleanSkill,
		"token.txt":            token + "\n",
		"old.txt":              "old-" + token + "\n",
	})
	if code := Main([]string{"build", "skills", "-o", "dist"}, nil, new(bytes.Buffer), new(bytes.Buffer)); code != 0 {
		t.Fatalf("build exited %d", code)
	}
	files := http.FileServer(http.Dir("dist"))
	var asked, denied atomic.Int32 // verify fetches files at once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		switch r.Header.Get("Authorization") {
		case "Bearer " + token:
			files.ServeHTTP(w, r)
		case "":
			denied.Add(1)
			http.Error(w, "a token is required", http.StatusUnauthorized)
		default:
			denied.Add(1)
			http.Error(w, "not this token", http.StatusForbidden)
		}
	}))
	defer srv.Close()
	index := srv.URL + "/.well-known/agent-skills/index.json"

	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--token-file", "token.txt"}, ExitOK, "; everything verified\n"},
		{[]string{"--header", "Authorization: Bearer " + token}, ExitOK, "; everything verified\n"},
		{nil, ExitFindings, "skillpack: cannot read " + index + ": " + srv.URL +
			" answered 401 Unauthorized; pass a token with --token-file or --header 'Authorization: …'\n"},
		{[]string{"--token-file", "old.txt"}, ExitFindings, "skillpack: cannot read " + index + ": " + srv.URL +
			" answered 403 Forbidden to the headers given; check that the token is current and may read this bundle\n"},
	} {
		asked.Store(0)
		denied.Store(0)
		var stdout, stderr bytes.Buffer
		code := Main(append([]string{"verify", srv.URL}, tc.args...), nil, &stdout, &stderr)
		if code != tc.code || !strings.HasSuffix(stderr.String(), tc.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, stderr ending %q", tc.args, code, stderr.String(), tc.code, tc.stderr)
		}
		if strings.Contains(stdout.String()+stderr.String(), token) {
			t.Errorf("%q: the output prints the token:\n%s%s", tc.args, stdout.String(), stderr.String())
		}
		if tc.code == ExitOK && (denied.Load() != 0 || asked.Load() < 5) {
			t.Errorf("%q: %d requests, %d refused; want every file fetched with the token", tc.args, asked.Load(), denied.Load())
		}
	}
}

// The limits on what a hostile bundle may cost: zero (unset) is verify's
// default, a negative value a usage error.
func TestVerifyLimitFlags(t *testing.T) {
	var opts *verifyOptions
	parse(t, newVerifyCmd(&IO{}, func(_ context.Context, o *verifyOptions) error { opts = o; return nil }),
		[]string{"https://example.com", "--deadline", "90s", "--max-skills", "20000", "-j", "3"})
	want := verifyOptions{Source: "https://example.com", Options: verify.Options{MaxSize: verify.DefaultMaxSize, Timeout: verify.DefaultTimeout,
		Deadline: 90 * time.Second, MaxSkills: 20000, Jobs: 3}}
	if !reflect.DeepEqual(*opts, want) {
		t.Errorf("got %+v\nwant %+v", *opts, want)
	}
	for flag, want := range map[string]string{
		"--deadline=-1s":  "--deadline -1s: give a positive duration such as 5m",
		"--max-skills=-1": "--max-skills -1: give a positive number",
		"--jobs=-2":       "--jobs -2: give a positive number",
	} {
		var stderr bytes.Buffer
		code := Main([]string{"verify", "http://127.0.0.1:1", flag}, nil, new(bytes.Buffer), &stderr)
		if code != ExitUsage || stderr.String() != "skillpack: "+want+"\n" {
			t.Errorf("%s: exit %d, stderr %q; want exit %d, %q", flag, code, stderr.String(), ExitUsage, want)
		}
	}
}

// A served index over --max-skills, and one whose files outlast
// --deadline, fail the check (exit 1) with one problem that says which
// flag to raise, as text and in --json.
func TestVerifyURLLimits(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	writeSkills(t, map[string]string{"skills/good/SKILL.md": cleanSkill, "skills/other/SKILL.md": strings.ReplaceAll(cleanSkill, "good", "other")})
	if code := Main([]string{"build", "skills", "-o", "dist"}, nil, new(bytes.Buffer), new(bytes.Buffer)); code != 0 {
		t.Fatalf("build exited %d", code)
	}
	files := http.FileServer(http.Dir("dist"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/SKILL.md") {
			<-r.Context().Done() // never answers
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		args       []string
		out, outTo string // stdout: from, to
		stderr     string
	}{
		{[]string{"--max-skills", "1"},
			".well-known/agent-skills/index.json: lists 2 skills, more than the limit of 1 (--max-skills); not checked further. Pass --max-skills 2 to check a bundle this large\n", "",
			srv.URL + "/: 0 skills, 1 file, 0 archives, 1 index, 0 signatures verified; 1 problem\n"},
		{[]string{"--deadline", "1s"},
			srv.URL + "/: not verified: the 1s deadline for the whole check (--deadline) passed after ",
			// "1 file had" or "N files had": how many came in before the
			// deadline depends on the machine's load.
			" had been read; the rest was not checked. Raise --deadline, or --jobs to fetch more at once\n",
			"; 1 problem\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(append([]string{"verify", srv.URL}, tc.args...), nil, &stdout, &stderr)
		if code != ExitFindings || !strings.HasPrefix(stdout.String(), tc.out) || !strings.HasSuffix(stdout.String(), tc.outTo) ||
			strings.Count(stdout.String(), "\n") != 1 || !strings.HasSuffix(stderr.String(), tc.stderr) {
			t.Errorf("%q: exit %d\nstdout %q\nstderr %q\nwant exit %d, one line from %q to %q, stderr ending %q",
				tc.args, code, stdout.String(), stderr.String(), ExitFindings, tc.out, tc.outTo, tc.stderr)
		}
		stdout.Reset()
		if code := Main(append([]string{"verify", srv.URL, "--json"}, tc.args...), nil, &stdout, new(bytes.Buffer)); code != ExitFindings || !strings.Contains(stdout.String(), `"exitCode": 1`) {
			t.Errorf("%q --json: exit %d\n%s", tc.args, code, stdout.String())
		}
	}
}
