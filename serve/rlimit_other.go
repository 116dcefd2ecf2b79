//go:build !unix

package serve

// openFileBudget is how many files one bundle may keep open.
func openFileBudget() int { return 1024 }
