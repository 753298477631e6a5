package apputil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// The loader's secure-execution mode, which ignores the shim's LD_PRELOAD, is told from the file
// and the caller: a set-user-ID file of another owner, a set-group-ID one of another group, file
// capabilities for a caller without root's; none of them on a nosuid mount. Debian's ping has
// cap_net_raw=ep, and a user's `qjump run -- ping` ran on level 0 without a word (review,
// helper-98).
func TestSecureExecIsTold(t *testing.T) {
	const user, root = 1000, 0
	for _, c := range []struct {
		name           string
		mode, uid, gid uint32
		caps, nosuid   bool
		euid, egid     uint32
		secure         bool
	}{
		{"plain", 0o755, root, root, false, false, user, user, false},
		{"setuid root, run by a user", 0o4755, root, root, false, false, user, user, true},
		{"setuid root, run by root", 0o4755, root, root, false, false, root, root, false},
		{"setuid of another user, run by root", 0o4755, 65534, root, false, false, root, root, true},
		{"setgid of another group", 0o2755, root, 5, false, false, root, root, true},
		{"setgid bit without group execute (mandatory locking)", 0o2745, root, 5, false, false, root, root, false},
		{"file capabilities, run by a user", 0o755, root, root, true, false, user, user, true},
		{"file capabilities, run by root", 0o755, root, root, true, false, root, root, false},
		{"setuid root on a nosuid mount", 0o4755, root, root, true, true, user, user, false},
	} {
		why := secureExecFor(unix.S_IFREG|c.mode, c.uid, c.gid, c.caps, c.nosuid, c.euid, c.egid)
		if (why != "") != c.secure {
			t.Errorf("%s: %q, want secure %v", c.name, why, c.secure)
		}
	}
}

// A set-user-ID program the caller does not own is refused in preload mode, naming why and the
// mode that reaches it; a qjump is not refused as a Go program (a run nested in a preload run
// sets its own level).
func TestPreloadRefusesSecureExecution(t *testing.T) {
	dir := t.TempDir()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil || fs.Flags&unix.ST_NOSUID != 0 {
		t.Skipf("%s is on a nosuid mount (%v): no set-user-ID file to make there", dir, err)
	}
	prog := filepath.Join(dir, "true")
	copyFile(t, "/bin/true", prog)
	owner := uint32(os.Geteuid() + 1) // an owner other than the caller
	if err := os.Chown(prog, int(owner), -1); err != nil {
		t.Skipf("chown: %v (needs root)", err)
	}
	if err := os.Chmod(prog, os.ModeSetuid|0o755); err != nil { // 0o4755 would be 0o755 to os.Chmod
		t.Fatal(err)
	}
	if err := checkPreloadReaches(prog); !errors.Is(err, ErrPreloadCannotReach) {
		t.Errorf("a set-user-ID program of owner %d: %v, want ErrPreloadCannotReach", owner, err)
	}
	qjump := programs(t).qjump
	if err := checkPreloadReaches(qjump); err != nil {
		t.Errorf("qjump as CMD of a preload run: %v, want it taken (the inner run decides)", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
