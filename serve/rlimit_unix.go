//go:build unix

package serve

import "syscall"

// openFileBudget is how many files one bundle may keep open: a quarter of
// the process's limit (Go raises the soft limit to the hard one at
// startup), which leaves room for connections and a second bundle.
func openFileBudget() int {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil || l.Cur == 0 {
		return 256
	}
	return int(min(l.Cur/4, 1<<20))
}
