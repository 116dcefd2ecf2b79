package cli

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
)

func TestPullFlags(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want pullOptions
	}{
		{argv: []string{"oci://ghcr.io/o/skills"}, want: pullOptions{Source: "oci://ghcr.io/o/skills", Output: "."}},
		{
			argv: []string{"oci://127.0.0.1:5000/s:v1", "-o", "out", "--skill", "pdf", "--insecure", "--username", "u", "--password-stdin"},
			want: pullOptions{Source: "oci://127.0.0.1:5000/s:v1", Output: "out", Skill: "pdf", Insecure: true, Login: LoginFlags{Username: "u", PasswordStdin: true}},
		},
	} {
		var opts *pullOptions
		parse(t, newPullCmd(&IO{}, func(_ context.Context, o *pullOptions) error { opts = o; return nil }), tc.argv)
		if !reflect.DeepEqual(opts, &tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.argv, *opts, tc.want)
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
	// and of a dry run to another repository (all would-upload) are what
	// the schema says.
	schemas, err := filepath.Abs(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{{"publish", dist, target, "--json"}, {"publish", dist, "oci://" + host + "/acme/other", "--json", "--dry-run"}} {
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
		{[]string{"pull", "oci://" + host + "/acme/nothing", "-o", out}, ExitInternal, "not found"},
	} {
		ios, _, errb := fakeIO(nil)
		if code := run(ios, tc.argv); code != tc.code || !strings.Contains(errb.String(), tc.err) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.argv, code, errb, tc.code, tc.err)
		}
	}
}
