package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

// token is what the private server below wants; no output may print it.
const token = "s3cr3t-t0ken"

func TestVerifyRequestHeader(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/token.txt"
	if err := os.WriteFile(file, []byte("\n  "+token+" \r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := &verifyOptions{Headers: []string{"x-api-key:  k1 ", "X-Api-Key:k2", "Accept: application/json"}, TokenFile: file}
	got, err := opts.requestHeader()
	if err != nil {
		t.Fatal(err)
	}
	want := http.Header{"X-Api-Key": {"k1", "k2"}, "Accept": {"application/json"}, "Authorization": {"Bearer " + token}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, err := (&verifyOptions{}).requestHeader(); got != nil || err != nil {
		t.Errorf("no flags: %v, %v; want nothing", got, err)
	}

	// A line break would end the header and start another: header
	// injection. The scripts cannot spell one.
	for _, h := range []string{"X-Key: " + token + "\r\nX-Evil: 1", "X-Key: " + token + "\n", "X-Key: a\x00" + token, "X\r\nKey: " + token} {
		_, err := (&verifyOptions{Headers: []string{h}}).requestHeader()
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
		" \n\t\n":                     "the file is empty",
		"Bearer " + token:             "the file starts with 'Bearer '",
		token + "\x01":                "not printable ASCII",
		"t\u00f6k" + token:            "not printable ASCII",
		token + "\t" + token:          "a space, a line break",
		token + "\r\n" + token + "\n": "a space, a line break",
	} {
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := (&verifyOptions{TokenFile: file}).requestHeader()
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
