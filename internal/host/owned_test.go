package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A directory is this user's alone when it owns it and no one else may write to it: one anyone may
// write to, one another user owns (root only can make one here) and a file are each refused,
// naming why.
func TestOwnedByMe(t *testing.T) {
	dir := t.TempDir()
	check := func(path string) error {
		st, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		return OwnedByMe(path, st)
	}
	if err := check(dir); err != nil {
		t.Errorf("a fresh temp dir: %v, want it this user's alone", err)
	}
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := check(open); err == nil || !strings.Contains(err.Error(), "may be written by others") {
		t.Errorf("a directory of mode 1777: %v, want refused as written by others", err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := check(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file: %v, want refused as not a directory", err)
	}
	if os.Geteuid() != 0 {
		t.Log("not root: a directory of another user is not made here")
		return
	}
	theirs := filepath.Join(dir, "theirs")
	if err := os.Mkdir(theirs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := check(theirs); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
		t.Errorf("a directory of uid 65534: %v, want refused naming its owner", err)
	}
}
