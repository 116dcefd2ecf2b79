// Command skillpack-sign holds skillpack's Sigstore code: it signs and
// verifies for `skillpack sign`, `skillpack build --sign` and
// `skillpack verify`, which run it as a helper, as git runs git-remote-*.
//
// It is a module of its own so that skillpack itself does not depend on
// sigstore-go: building skillpack compiles 285 packages, this helper 593,
// 373 of which nothing else needs; linting, packing and the pre-commit hook
// never sign.
// Install it beside skillpack:
//
//	go install github.com/skillpack/skillpack/cmd/skillpack-sign@latest
//
// # Protocol
//
// skillpack starts one helper per run, with flags, and talks to it in JSON
// lines: one object a line each way, in order.
//
//	skillpack-sign sign [--key FILE] [--fulcio-url URL] [--rekor-url URL]
//	                    [--tsa-url URL] [--trusted-root FILE] [--signing-config FILE]
//	skillpack-sign verify [--certificate-identity ID | --certificate-identity-regexp RE]
//	                      [--certificate-oidc-issuer URL] [--key FILE] [--trusted-root FILE]
//	                      [--certificate-chain FILE]
//
// The helper first checks its flags (loading keys and roots, contacting no
// signing service) and writes one line: {"protocol":2} (sign adds
// "keyless":true or false), or {"protocol":2,"error":"...","usage":true}
// and exits 2 when the flags are the user's mistake. Then it answers each
// request line on stdin until stdin ends, then exits 0:
//
//	sign:   {"digest":"sha256:HEX"}                    → {"bundle":"BASE64"} | {"error":"..."}
//	sign:   {"statement":"BASE64"}                     → {"bundle":"BASE64"} | {"error":"..."}
//	verify: {"digest":"sha256:HEX","bundle":"BASE64"}  → {"ok":true}         | {"error":"..."}
//	verify: {"bundle":"BASE64","dsse":true}            → {"ok":true,"payload":"BASE64"} | {"error":"..."}
//
// A bundle is the bytes of a Sigstore bundle JSON document (v0.3),
// base64-encoded as Go's encoding/json writes []byte. For an artifact,
// only its digest crosses the boundary, never its bytes: the bundle signs
// the sha256 digest, which is all a verifier checks an artifact against.
// A statement is an in-toto statement (a skill folder's OMS statement,
// which lists the folder's files by digest): the bundle holds a DSSE
// envelope over it, and verifying one returns the statement it signs, for
// skillpack to compare with the folder. A keyless run gets one Fulcio
// certificate, at its first signature, for every artifact and statement.
//
// Protocol 2 added the statement requests; skillpack refuses a helper of
// another protocol with the command that installs a matching one.
//
// Secrets stay out of argv: the keyless OIDC token (or the file holding
// it) comes from --identity-token or SKILLPACK_IDENTITY_TOKEN, then
// SIGSTORE_ID_TOKEN, then GitHub Actions; a key's password from
// SKILLPACK_KEY_PASSWORD or COSIGN_PASSWORD.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)) }
