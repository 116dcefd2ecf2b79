// Package layout owns the shape of a built bundle: every path inside dist/,
// every URL and skill:// URI, the index documents and their exact bytes.
//
// It does no I/O of its own. The build hands it skills whose files and
// archives it has already digested; layout answers with paths, documents and
// a Plan of every entry, so that the writer, verify and serve share one truth
// about what a bundle holds. Nothing outside this package spells a path or
// URL. A Plan's documents are streamed into writers the caller passes,
// never held whole, so that a bundle of any size is written in bounded
// memory.
//
// It also reads what it writes, so that a format has one definition: the
// document types are the writer's and the readers' (DecodeIndexV2 and the
// other decoders, DecodeRecord, ParseChecksums, and DecodeStatement for a
// skill folder's signed statement), every path and URI has
// its inverse (ParsePath, ParseURI, ParseIndexURL, ParseArchiveName),
// CheckPath is the one check of a path a document names, and SignedPath
// the one list of what is signed. verify, serve, sign and the build's
// reuse read the bundle through them; a key or a name spelt outside this
// package is a second definition, and a test fails on it.
//
// Documents are deterministic: skills and files are sorted, keys come in a
// fixed order (struct fields), JSON is indented with two spaces, lines end
// in "\n", every document ends with a newline, and nothing records a time,
// host or absolute path. Two builds of the same input give the same bytes.
package layout
