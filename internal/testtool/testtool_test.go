package testtool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck runs Check with an empty PATH, where every tool is missing,
// and with a PATH holding one fake tool.
func TestCheck(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "bsdtar"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	cache.Clear()
	t.Cleanup(cache.Clear)

	for _, c := range []struct {
		env, name string
		ok, fail  bool
		want      []string
	}{
		{"", "bsdtar", true, false, nil},
		{"", "unzip", false, false, []string{"unzip is not installed", "Debian: unzip"}},
		{"", GNUTar, false, false, []string{"GNU tar is not installed"}},
		{"0", "unzip", false, false, []string{"unzip is not installed"}},
		{"1", "unzip", false, true, []string{"unzip is not installed", Env + "=1 requires it"}},
		{"1", "bsdtar", true, false, nil},
		{"1", "cosign", false, false, []string{"cosign is not installed"}}, // optional
	} {
		t.Setenv(Env, c.env)
		ok, fail, err := Check(c.name)
		if ok != c.ok || fail != c.fail {
			t.Errorf("%s=%q Check(%s) = %v, %v, %v; want %v, %v", Env, c.env, c.name, ok, fail, err, c.ok, c.fail)
		}
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s=%q Check(%s): error %v does not say %q", Env, c.env, c.name, err, w)
			}
		}
	}
}

// TestNeedSkips checks that a missing tool skips the test, naming it.
func TestNeedSkips(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(Env, "")
	cache.Clear()
	t.Cleanup(cache.Clear)
	var skipped bool
	t.Run("inner", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Need(t, "unzip")
		t.Error("Need returned without the tool")
	})
	if !skipped {
		t.Error("Need did not skip")
	}
}

// TestMemDir: a new empty folder the test can write to, gone once the
// test that made it ends; on tmpfs where memRoot found one.
func TestMemDir(t *testing.T) {
	var dir string
	t.Run("make", func(t *testing.T) {
		dir = MemDir(t)
		if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
			t.Fatalf("MemDir: %d entries, %v; want an empty folder", len(entries), err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "a", "b", "c"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if root := memRoot(); root != "" && filepath.Dir(dir) != root {
			t.Errorf("MemDir made %s, not in %s", dir, root)
		}
		t.Logf("MemDir: %s (tmpfs root %q)", dir, memRoot())
	})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there after its test: %v", dir, err)
	}
}
