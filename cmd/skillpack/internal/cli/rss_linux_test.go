package cli

import (
	"bytes"
	"fmt"
	"os"
)

// noteHWM writes the peak RSS of this process, in bytes, to the file
// $SKILLPACK_TEST_HWM names, if any: a child's own peak (VmHWM), which its
// rusage cannot give, since Linux counts there the memory of the test
// process it was forked from (exec_mmap keeps the old image's peak).
func noteHWM() {
	name := os.Getenv("SKILLPACK_TEST_HWM")
	if name == "" {
		return
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range bytes.Lines(status) {
		var kib int64
		if _, err := fmt.Sscanf(string(line), "VmHWM: %d kB", &kib); err == nil {
			os.WriteFile(name, fmt.Appendf(nil, "%d", kib<<10), 0o644)
		}
	}
}
