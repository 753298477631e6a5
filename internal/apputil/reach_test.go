package apputil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// The loader's secure-execution mode, which ignores the shim's LD_PRELOAD, is told as the kernel
// tells it (cap_bprm_creds_from_file): the new effective user or group not the caller's real one
// (a set-ID file of another owner, or a caller whose effective and real ids differ), or file
// capabilities for a caller whose real user is not root; the set-ID bits count for nothing on a
// nosuid mount or under no_new_privs, file capabilities on a nosuid mount only. Debian's ping has cap_net_raw=ep, and a
// user's `qjump run -- ping` ran on level 0 without a word (review, helper-98); effective ids
// were compared at first (review, helper-100).
func TestSecureExecIsTold(t *testing.T) {
	const user, root = 1000, 0
	me := func(id uint32) creds { return creds{ruid: id, euid: id, rgid: id, egid: id} }
	setuidOf := func(owner uint32) execFile { return execFile{mode: 0o4755, uid: owner} }
	for _, c := range []struct {
		name   string
		f      execFile
		c      creds
		secure bool
	}{
		{"plain, run by a user", execFile{mode: 0o755}, me(user), false},
		{"setuid root, run by a user", setuidOf(root), me(user), true},
		{"setuid root, run by root", setuidOf(root), me(root), false},
		{"setuid of another user, run by root", setuidOf(65534), me(root), true},
		{"setuid root, run by a user with no_new_privs", setuidOf(root), creds{ruid: user, euid: user, rgid: user, egid: user, noNewPrivs: true}, false},
		{"setuid root on a nosuid mount", execFile{mode: 0o4755, nosuid: true}, me(user), false},
		{"setgid of another group", execFile{mode: 0o2755, gid: 5}, me(root), true},
		{"setgid bit without group execute (mandatory locking)", execFile{mode: 0o2745, gid: 5}, me(root), false},
		{"file capabilities, run by a user", execFile{mode: 0o755, caps: true}, me(user), true},
		{"file capabilities, run by root", execFile{mode: 0o755, caps: true}, me(root), false},
		{"file capabilities, run by a user with no_new_privs", execFile{mode: 0o755, caps: true}, creds{ruid: user, euid: user, rgid: user, egid: user, noNewPrivs: true}, true},
		{"file capabilities on a nosuid mount, run by a user", execFile{mode: 0o755, caps: true, nosuid: true}, me(user), false},
		{"plain, run by a set-user-ID caller (effective root, real user)", execFile{mode: 0o755}, creds{ruid: user, euid: root, rgid: user, egid: user}, true},
		{"setuid root, run by a set-user-ID caller", setuidOf(root), creds{ruid: user, euid: root, rgid: user, egid: user}, true},
		{"plain, run by a caller whose effective group is not its real one", execFile{mode: 0o755}, creds{ruid: user, euid: user, rgid: user, egid: 5}, true},
	} {
		c.f.mode |= unix.S_IFREG
		if why := secureExecFor(c.f, c.c); (why != "") != c.secure {
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
	if err := checkPreloadReaches(prog, nil); !errors.Is(err, ErrPreloadCannotReach) {
		t.Errorf("a set-user-ID program of owner %d: %v, want ErrPreloadCannotReach", owner, err)
	}
	qjump := programs(t).qjump
	if err := checkPreloadReaches(qjump, []string{"run", "--mode", "cgroup", "--level", "6", "--", "true"}); err != nil {
		t.Errorf("qjump run as CMD of a preload run: %v, want it taken (the inner run decides)", err)
	}
	if err := checkPreloadReaches(qjump, []string{"probe", "server"}); !errors.Is(err, ErrPreloadCannotReach) {
		t.Errorf("qjump probe as CMD of a preload run: %v, want it refused as a Go program the shim cannot reach", err)
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
