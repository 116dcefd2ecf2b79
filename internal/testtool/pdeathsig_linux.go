package testtool

import (
	"os/exec"
	"syscall"
)

// dieWithTest has the kernel kill a server the test started when the test
// binary dies: a test that times out panics without running its
// cleanups, which would leave the server running.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
