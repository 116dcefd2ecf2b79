package main

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lines runs the helper with args on the given request lines and returns
// its exit code and the lines it wrote.
func lines(t *testing.T, args []string, reqs ...any) (int, []map[string]any) {
	t.Helper()
	var in bytes.Buffer
	for _, r := range reqs {
		if s, ok := r.(string); ok {
			in.WriteString(s + "\n")
			continue
		}
		json.NewEncoder(&in).Encode(r)
	}
	var out, errOut bytes.Buffer
	code := run(args, &in, &out, &errOut, func(string) string { return "" })
	if errOut.Len() > 0 {
		t.Logf("stderr: %s", errOut.String())
	}
	var got []map[string]any
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		got = append(got, m)
	}
	return code, got
}

func keyFiles(t *testing.T) (priv, pub string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	pder, _ := x509.MarshalPKIXPublicKey(k.Public())
	priv, pub = filepath.Join(dir, "key.pem"), filepath.Join(dir, "pub.pem")
	os.WriteFile(priv, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pder}), 0o644)
	return priv, pub
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestProtocol signs two digests in one run and verifies the bundles in
// another, as skillpack does, line by line.
func TestProtocol(t *testing.T) {
	priv, pub := keyFiles(t)
	code, out := lines(t, []string{"sign", "--key", priv},
		request{Digest: sha("a")}, request{Digest: sha("b")}, request{Digest: "md5:00"}, "{not json")
	if code != exitOK || len(out) != 5 {
		t.Fatalf("exit %d, %d lines: %v", code, len(out), out)
	}
	if out[0]["protocol"] != float64(Protocol) || out[0]["keyless"] != false {
		t.Errorf("hello = %v", out[0])
	}
	for _, o := range out[3:] {
		if o["error"] == nil {
			t.Errorf("a bad request got %v", o)
		}
	}
	var bundles [][]byte
	for _, o := range out[1:3] {
		var r line
		data, _ := json.Marshal(o)
		json.Unmarshal(data, &r)
		if r.Error != "" || !strings.Contains(string(r.Bundle), "application/vnd.dev.sigstore.bundle") {
			t.Fatalf("sign response %v", o)
		}
		bundles = append(bundles, r.Bundle)
	}

	code, out = lines(t, []string{"verify", "--key", pub},
		request{Digest: sha("a"), Bundle: bundles[0]},
		request{Digest: sha("b"), Bundle: bundles[1]},
		request{Digest: sha("a"), Bundle: bundles[1]},
		request{Digest: sha("a"), Bundle: []byte("{}")})
	if code != exitOK || len(out) != 5 {
		t.Fatalf("exit %d, %d lines: %v", code, len(out), out)
	}
	if out[1]["ok"] != true || out[2]["ok"] != true {
		t.Errorf("good bundles: %v, %v", out[1], out[2])
	}
	if e, _ := out[3]["error"].(string); !strings.Contains(e, "digest mismatch") {
		t.Errorf("a bundle for another artifact: %v", out[3])
	}
	if e, _ := out[4]["error"].(string); e == "" {
		t.Errorf("an empty bundle: %v", out[4])
	}
}

// TestProtocolUsage checks that flags the user got wrong come back as one
// usage line and exit 2, before any request is read.
func TestProtocolUsage(t *testing.T) {
	for name, args := range map[string][]string{
		"keyless without token": {"sign"},
		"missing key":           {"sign", "--key", "nowhere.pem"},
		"unknown flag":          {"sign", "--nope"},
		"argument":              {"verify", "--key", "k.pem", "extra"},
		"verify without policy": {"verify"},
	} {
		t.Run(name, func(t *testing.T) {
			code, out := lines(t, args, request{Digest: sha("a")})
			if code != exitUsage || len(out) != 1 || out[0]["usage"] != true || out[0]["error"] == "" {
				t.Errorf("exit %d, %v", code, out)
			}
		})
	}
	if code, _ := lines(t, []string{"frobnicate"}); code != exitUsage {
		t.Errorf("unknown command exited %d", code)
	}
}

// TestProtocolStatement signs an in-toto statement and gets it back from
// verify with "dsse", in the same lines as digests.
func TestProtocolStatement(t *testing.T) {
	priv, pub := keyFiles(t)
	st := []byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"x","digest":{"sha256":"00"}}],"predicateType":"https://example.com/p","predicate":{}}`)
	code, out := lines(t, []string{"sign", "--key", priv}, request{Statement: st}, request{Digest: sha("a")}, request{Statement: []byte(`{}`)})
	if code != exitOK || len(out) != 4 {
		t.Fatalf("exit %d, %d lines: %v", code, len(out), out)
	}
	decode := func(o map[string]any) line {
		var r line
		data, _ := json.Marshal(o)
		json.Unmarshal(data, &r)
		return r
	}
	folder, blob := decode(out[1]), decode(out[2])
	if folder.Error != "" || blob.Error != "" {
		t.Fatalf("sign: %v", out)
	}
	if e := decode(out[3]).Error; !strings.Contains(e, "not an in-toto statement") {
		t.Errorf("an empty statement: %q", e)
	}
	code, out = lines(t, []string{"verify", "--key", pub},
		request{Bundle: folder.Bundle, DSSE: true},
		request{Bundle: blob.Bundle, DSSE: true},
		request{Digest: sha("a"), Bundle: folder.Bundle})
	if code != exitOK || len(out) != 4 {
		t.Fatalf("exit %d, %d lines: %v", code, len(out), out)
	}
	if r := decode(out[1]); !r.OK || !bytes.Equal(r.Payload, st) {
		t.Errorf("verify statement: %v", out[1])
	}
	if e := decode(out[2]).Error; !strings.Contains(e, "not a folder's statement") {
		t.Errorf("a blob bundle as a statement: %q", e)
	}
	if e := decode(out[3]).Error; !strings.Contains(e, "no message signature") {
		t.Errorf("a folder bundle as a blob: %q", e)
	}
}
