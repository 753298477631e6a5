package apputil

import (
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ErrPreloadCannotReach is returned when LD_PRELOAD would not reach CMD's sockets: the run would
// succeed and put nothing on the level. Cgroup mode reaches every program.
var ErrPreloadCannotReach = errors.New("the preload shim cannot reach this program's sockets")

// checkPreloadReaches refuses a program the shim cannot reach: one without a dynamic loader
// (statically linked: nothing reads LD_PRELOAD), and a Go program, which makes its sockets with
// system calls of its own rather than through libc, even when it is linked dynamically. A file
// that is not ELF (a script) is run by an interpreter that the shim does reach.
func checkPreloadReaches(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return nil // not ELF: a script, whose interpreter is
	}
	defer f.Close()
	dynamic := false
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			dynamic = true
		}
	}
	switch {
	case !dynamic:
		return fmt.Errorf("%w: %s is statically linked, so LD_PRELOAD is never read; use --mode cgroup", ErrPreloadCannotReach, path)
	case isGo(path) && !isQJump(path):
		return fmt.Errorf("%w: %s is a Go program, which makes its sockets without libc; use --mode cgroup", ErrPreloadCannotReach, path)
	}
	if why := secureExec(path); why != "" {
		return fmt.Errorf("%w: %s is %s, so the dynamic loader runs it in secure-execution mode, which ignores the "+
			"shim's LD_PRELOAD (ld.so(8)); use --mode cgroup", ErrPreloadCannotReach, path, why)
	}
	return nil
}

// isQJump says whether the executable at path is a qjump: a run nested in a preload run
// (`qjump run --level 2 -- qjump run --mode cgroup --level 6 -- CMD`) sets its own level, the
// innermost deciding, as with a shell between the two; it was refused as a Go program, with
// advice to use the mode the inner run used (review, helper-98).
func isQJump(path string) bool {
	bi, err := buildinfo.ReadFile(path)
	return err == nil && bi.Path == "github.com/qjump-net/qjump/cmd/qjump"
}

// secureExec says why the loader would run the program at path in secure-execution mode for
// this process, "" if it would not (secureExecFor on the file and this process's ids).
func secureExec(path string) string {
	var st unix.Stat_t
	var fs unix.Statfs_t
	if unix.Stat(path, &st) != nil || unix.Statfs(path, &fs) != nil {
		return ""
	}
	_, capErr := unix.Getxattr(path, "security.capability", nil)
	return secureExecFor(st.Mode, st.Uid, st.Gid, capErr == nil, fs.Flags&unix.ST_NOSUID != 0,
		uint32(os.Geteuid()), uint32(os.Getegid()))
}

// secureExecFor is secureExec's decision: the kernel sets AT_SECURE, and ld.so then ignores a
// preload path with a slash, for a set-user-ID file owned by another user than the caller's
// effective one, a set-group-ID file of another group, or a file with capabilities run by a
// caller without root's (Debian's ping has cap_net_raw=ep: a user's `qjump run -- ping` ran on
// level 0 without a word, review, helper-98); on a nosuid mount none of these take effect.
func secureExecFor(mode, uid, gid uint32, fileCaps, nosuid bool, euid, egid uint32) string {
	switch {
	case nosuid:
		return ""
	case mode&unix.S_ISUID != 0 && uid != euid:
		return fmt.Sprintf("set-user-ID (owner %d)", uid)
	case mode&unix.S_ISGID != 0 && mode&unix.S_IXGRP != 0 && gid != egid:
		return fmt.Sprintf("set-group-ID (group %d)", gid)
	case fileCaps && euid != 0:
		return "given file capabilities (security.capability)"
	}
	return ""
}

// isGo says whether the executable at path was built by the Go toolchain.
func isGo(path string) bool {
	_, err := buildinfo.ReadFile(path)
	return err == nil
}
