// Package layout owns the formats of a built bundle, written and read:
// every path inside it, every URL and skill:// URI with its inverse
// (ParsePath, ParseURI, ParseIndexURL, ResolveURL, ParseArchiveName), the
// documents' exact bytes and their decoders, the build record, Digest,
// what is signed (SignedPath), CheckPath (the one check of a path a
// document names), Plan (every entry of a bundle, streamed) and Guard
// (what a bundle may change of the one published before it).
//
// It must not do I/O of its own: it writes to the writers and reads the
// bytes it is given, streaming a Plan's documents so that a bundle of any
// size is written in bounded memory. Nothing outside it may spell a path,
// a URL or a document's key (a test fails on a second definition), and
// nothing it writes records a time, a host or an absolute path: two builds
// of the same input give the same bytes. Its files: ARCHITECTURE.md.
package layout
