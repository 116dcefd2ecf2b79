//go:build !unix

package skill

import "testing"

func mkfifo(t *testing.T, path string) {
	t.Skip("no named pipes here")
}
