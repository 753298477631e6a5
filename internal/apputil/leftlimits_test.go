package apputil

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// leftLimits reads the caller's cgroup and its ancestors below the root, and names the limits
// that are set, not those at "max"; the root's own files are not the caller's.
func TestLeftLimits(t *testing.T) {
	root := t.TempDir()
	svc := filepath.Join(root, "system.slice", "job.service")
	if err := os.MkdirAll(svc, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"memory.max":                           "7",
		"system.slice/cpu.max":                 "50000 100000",
		"system.slice/memory.max":              "max",
		"system.slice/job.service/cpu.max":     "max 100000",
		"system.slice/job.service/memory.high": "1073741824\n",
		"system.slice/job.service/pids.max":    "4915",
	}
	for name, v := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"memory.high of /system.slice/job.service (1073741824)", "cpu.max of /system.slice (50000 100000)"}
	if got := leftLimits(root, svc); !slices.Equal(got, want) {
		t.Errorf("leftLimits = %q, want %q", got, want)
	}
	if got := leftLimits(root, root); len(got) != 0 {
		t.Errorf("at the root: %q, want none", got)
	}
	if got := leftLimits(root, filepath.Join(root, "gone")); len(got) != 0 {
		t.Errorf("a cgroup without limit files: %q, want none", got)
	}
}
