package smallfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "plugin.json")
	if err := os.WriteFile(ok, []byte(`{"name":"a"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(ok); err != nil || string(data) != `{"name":"a"}` {
		t.Errorf("Read(a file) = %q, %v", data, err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, Max+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read(a file of Max+1 bytes) = %v, want ErrTooLarge", err)
	}
	if err := os.Truncate(big, Max); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(big); err != nil || len(data) != Max {
		t.Errorf("Read(a file of Max bytes) = %d bytes, %v", len(data), err)
	}
}
