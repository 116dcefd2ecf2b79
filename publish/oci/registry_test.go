package oci

import (
	"testing"

	"github.com/skillpack/skillpack/internal/testtool"
)

// testRegistry is a registry serving for the test (testtool.Registry).
type testRegistry struct {
	host string // 127.0.0.1:port
}

func startRegistry(t *testing.T) *testRegistry { return startRegistryWith(t, "") }

// startRegistryWith runs a registry whose configuration ends with extra
// (an auth section).
func startRegistryWith(t *testing.T, extra string) *testRegistry {
	t.Helper()
	return &testRegistry{host: testtool.Registry(t, extra)}
}
