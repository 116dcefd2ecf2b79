package lint

import (
	"strings"
	"testing"
)

// The tokens below are put together at run time, so that this file holds
// nothing a push-protection scanner would stop; the random parts were
// drawn for this test and were never credentials.
const (
	randomAlnum  = "m8tdEPQPVQ2D89xBhB3JAjEp2SSxnvDV3h4fvMaE7r1J3WJ3"
	randomBase32 = "OPWZ4D2HJDO26R2K"
	randomLines  = "nFAUaumU2tHm1fZmfu2wI5WFsbzVOPlM4dakQTv3GVbNN5rdzIoMVm2N4r0N9qp+\n" +
		"aSM1FNHEYctBXkJiXm7gq9EWzDOsTtb7sTmfwOh9eAENFu/1J4aNQZNSt7QhvaJ4\n" +
		"sLQ6YtzyScwRYJdRAXtC0iy3ZqBR2ZEF7r7Sqv2fiVy+MK3MFaei2G/fsnb65WBr\n"
	// pkcs8Prefix is how every 2048-bit RSA key in PKCS#8 starts, which
	// documentation shows cut off.
	pkcs8Prefix = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC"
)

// TestSecretPlaceholders checks that documentation's made-up keys are not
// reported (pikakit/agent-skills' "Incorrect" example of what not to log,
// j4flmao/agent-skills' vault.yml with a key cut off after its standard
// first characters) and that keys that look drawn at random still are.
func TestSecretPlaceholders(t *testing.T) {
	begin, end := "-----BEGIN PRIVATE KEY-----\n", "-----END PRIVATE KEY-----\n"
	for _, tc := range []struct {
		text string
		want int // hits
	}{
		{"key " + "sk-" + "proj-abc123def456ghi789jkl012mno345pqr678 to test", 0},
		{"sk-" + "proj-xyzxyzxyzxyzxyzxyzxyzxyz", 0},
		{"sk-" + "proj-123abc456def789ghi012jklAbC", 0},
		{"AKIA" + "ABCXYZ234567ABCX", 0},
		{begin + pkcs8Prefix + "...\n" + end, 0},
		{"  " + begin + "  " + pkcs8Prefix + "…\n  " + end, 0},
		{begin + pkcs8Prefix + "\n" + end, 1}, // not cut off: a line of key
		{begin + pkcs8Prefix + "...\n" + randomLines + end, 1},
		{begin + randomLines + end, 1},
		{"sk-" + "proj-" + randomAlnum, 1},
		{"AKIA" + randomBase32, 1},
		{"sk-" + "ant-api03-" + randomAlnum, 1},
		{"sk-" + "ant-admin01-" + randomAlnum, 1},
		{`"sk-` + `ant-conformance-anthropic"`, 0}, // yang888yu's stub server's tests
		{`"sk-` + `ant-test-key-for-the-local-stub"`, 0},
		// The body follows the header, in a string's escapes too; other
		// text between them is no key (yang888yu's redaction test: the
		// header in a string, then a 55-letter Go function name).
		{`chunk = "Bearer x ` + begin[:len(begin)-1] + ` aaaaaaaaaaaaaaaaaaaa sk-short"` + "\n\nfunc TestPayloadLargeAdversarialBodyAtDefaultCaptureCeiling(t *testing.T) {}\n", 0},
		{begin + "is the header of a key; after it comes\nTestPayloadLargeAdversarialBodyAtDefaultCaptureCeiling\n", 0},
		{`{"private_key": "` + begin[:len(begin)-1] + `\n` + strings.ReplaceAll(randomLines, "\n", `\n`) + `"}`, 1},
		{`key := "` + begin[:len(begin)-1] + `\n" +` + "\n\t\"" + randomLines[:64] + `\n"`, 1},
		{"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n" + randomLines, 1},
	} {
		if got := findSecrets([]byte(tc.text)); len(got) != tc.want {
			t.Errorf("findSecrets(%q) = %d hits, want %d", tc.text, len(got), tc.want)
		}
	}
}

// TestSecretFixSilences checks that the fix says how to silence a made-up
// example where lint reads it: a comment in a skill's Markdown, an allow
// entry elsewhere.
func TestSecretFixSilences(t *testing.T) {
	data := []byte("AKIA" + randomBase32 + "\n")
	for _, tc := range []struct{ rel, what, want string }{
		{"s/SKILL.md", "skill", "<!-- " + Directive + " secret -- made-up example -->"},
		{"s/scripts/up.py", "skill", "allow: [{rule: secret"},
		{"p/README.md", "plugin", "allow: [{rule: secret"},
	} {
		var got []Finding
		reportSecrets(tc.rel, data, tc.what, func(f Finding) { got = append(got, f) })
		if len(got) != 1 || !strings.Contains(got[0].Fix, tc.want) || !strings.HasPrefix(got[0].Fix, "revoke it") {
			t.Errorf("%s (%s): %v, want one finding whose fix says %q", tc.rel, tc.what, got, tc.want)
		}
	}
}

// FuzzFindSecrets reads any text for secrets: it never panics or stops,
// and each hit lies inside the text.
func FuzzFindSecrets(f *testing.F) {
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: x\n\n" + randomLines))
	f.Add([]byte(`"-----BEGIN PRIVATE KEY-----\nMIIEv…\n" + "x"` + " ghp_" + randomAlnum))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, h := range findSecrets(data) {
			if h.off < 0 || h.off+len(h.text) > len(data) {
				t.Fatalf("hit at %d of %d bytes", h.off, len(data))
			}
		}
	})
}
