package cli

import (
	"context"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestPublishFlags(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want publishOptions
	}{
		{argv: []string{"dist", "s3://skills/site"}, want: publishOptions{Dist: "dist", Target: "s3://skills/site"}},
		{
			argv: []string{"out", "s3://b", "--endpoint", "http://127.0.0.1:7070", "--insecure", "--dry-run", "--json", "-j", "4", "--prune", "--keep", "5",
				"--username", "AKID", "--password-stdin"},
			want: publishOptions{Dist: "out", Target: "s3://b", DryRun: true, JSON: true, Jobs: 4, PublishFlags: PublishFlags{
				Endpoint: "http://127.0.0.1:7070", Insecure: true, Prune: true, Keep: 5, Login: LoginFlags{Username: "AKID", PasswordStdin: true}}},
		},
		{argv: []string{"dist", "oci://ghcr.io/o/skills:v1", "--jobs", "2"}, want: publishOptions{Dist: "dist", Target: "oci://ghcr.io/o/skills:v1", Jobs: 2}},
	} {
		var opts *publishOptions
		parse(t, newPublishCmd(&IO{}, func(_ context.Context, o *publishOptions) error { opts = o; return nil }), tc.argv)
		if !reflect.DeepEqual(opts, &tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.argv, *opts, tc.want)
		}
	}
}

// fakeS3 is the scripts' command "fakes3 BUCKET": an S3 server in the
// test's process (gofakes3) on 127.0.0.1 with the bucket made, its URL in
// $S3, stopped when the script ends.
func fakeS3(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fakes3 BUCKET")
	}
	mem := s3mem.New()
	ts.Check(mem.CreateBucket(args[0]))
	srv := httptest.NewServer(gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	ts.Defer(srv.Close)
	ts.Setenv("S3", srv.URL)
}
