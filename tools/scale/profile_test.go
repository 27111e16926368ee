package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestReadAllocStatsSumsInstances(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, line := range map[string]string{
		"alloc-10.txt": "1048576 100 3\n",
		"alloc-11.txt": "2097152 50 1\n",
		"cpu-10.pprof": "not counted",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := readAllocStats(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := allocStats{bytes: 3 << 20, objects: 150, gcCycles: 4, instances: 2}
	if got != want {
		t.Errorf("readAllocStats = %+v, want %+v", got, want)
	}
}

func TestReadAllocStatsRefusesAMalformedLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "alloc-1.txt"), []byte("12 x 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readAllocStats(dir); err == nil {
		t.Error("a malformed allocation line was accepted")
	}
}

func TestProfileNeedsItsOwnBuild(t *testing.T) {
	t.Parallel()
	if _, err := parseFlags([]string{"-profile", t.TempDir(), "-provider", "some-binary"}, io.Discard); err == nil {
		t.Error("-profile with -provider was accepted")
	}
	o, err := parseFlags([]string{"-profile", "profiles"}, io.Discard)
	if err != nil || o.profileDir != "profiles" {
		t.Errorf("parseFlags(-profile profiles) = %+v, %v", o, err)
	}
}
