// Package bundle reads a built bundle: everything downstream of the build
// (verify, publish, serve, sign, build --previous, prune) reads one through it.
//
// It owns where a bundle's bytes come from (a Source: a Folder through an
// os.Root, a Site, an http(s) URL read through a client that keeps to one
// origin and to size and time limits, or a Store a publish target
// implements, read through Stored); reading the bundle from there (Open:
// checksums.txt once, and the documents decoded from the bytes checked
// against it; ReadDoc for a document another record vouches for); hashing
// a file or a stream to a layout.Digest (Hash, HashFile); and checking
// bytes against the digest they should have while they stream (Checked).
//
// It must not parse or spell a format (layout does), write anything, or
// judge a bundle beyond "are these the bytes it says": the deep checks
// are verify's.
package bundle
