// Package version tells which skillpack this is. The build's reuse cache and
// the archives' generator field depend on it, so it has one source: the
// module version stamped by the Go toolchain, or "devel".
package version

import (
	"runtime/debug"
	"sync"
)

// Module is the skillpack module path.
const Module = "github.com/skillpack/skillpack"

// Version is the module version of this binary, "(devel)" when built from a
// checkout.
// It is read once: the build asks for it in every skill's reuse key, and
// reading the build info parses it anew each time.
var Version = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
})
