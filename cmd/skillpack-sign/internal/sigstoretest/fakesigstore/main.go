// Command fakesigstore runs sigstoretest's private Sigstore instance for
// the main module's end-to-end tests of keyless signing, which cannot
// import this module: it writes the instance's trusted_root.json to the
// file -root names, prints one JSON line saying where each service is and
// whom the token names, and serves until its standard input closes (so that
// it ends with the test that started it, even one killed).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/skillpack/skillpack/cmd/skillpack-sign/internal/sigstoretest"
)

func main() {
	rootFile := flag.String("root", "", "write the trusted_root.json here")
	flag.Parse()
	if err := run(*rootFile); err != nil {
		fmt.Fprintln(os.Stderr, "fakesigstore:", err)
		os.Exit(1)
	}
}

func run(rootFile string) error {
	if rootFile == "" {
		return fmt.Errorf("-root FILE is required")
	}
	f, err := sigstoretest.New()
	if err != nil {
		return err
	}
	defer f.Close()
	tr, err := f.TrustedRoot()
	if err != nil {
		return err
	}
	if err := os.WriteFile(rootFile, tr, 0o644); err != nil {
		return err
	}
	// The line signtest.Sigstore reads: the services, and a token Fulcio
	// takes for Identity and Issuer.
	err = json.NewEncoder(os.Stdout).Encode(map[string]string{
		"fulcioURL": f.Fulcio.URL, "rekorURL": f.Rekor.URL, "tsaURL": f.TSA.URL + sigstoretest.TSAPath,
		"identityToken": f.IDToken(), "identity": sigstoretest.Identity, "issuer": sigstoretest.Issuer,
	})
	if err != nil {
		return err
	}
	io.Copy(io.Discard, os.Stdin)
	fmt.Fprintf(os.Stderr, "fakesigstore: %d certificates issued, %d log entries\n", f.FulcioCalls.Load(), f.Log.Entries())
	return nil
}
