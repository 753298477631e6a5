package apputil

import (
	"bytes"
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
func checkPreloadReaches(path string, args []string) error {
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
	main := goMain(path)
	switch {
	case !dynamic:
		return fmt.Errorf("%w: %s is statically linked, so LD_PRELOAD is never read; use --mode cgroup", ErrPreloadCannotReach, path)
	case main != "" && !nestedRun(main, args):
		return fmt.Errorf("%w: %s is a Go program, which makes its sockets without libc; use --mode cgroup", ErrPreloadCannotReach, path)
	}
	if why := secureExec(path); why != "" {
		return fmt.Errorf("%w: %s is %s, so the dynamic loader runs it in secure-execution mode, which ignores the "+
			"shim's LD_PRELOAD (ld.so(8)); use --mode cgroup", ErrPreloadCannotReach, path, why)
	}
	return nil
}

// nestedRun says whether the Go program whose main package is main, given args, is a qjump run:
// a run nested in a preload run (`qjump run --level 2 -- qjump run --mode cgroup --level 6 --
// CMD`) sets its own level, the innermost deciding, as with a shell between the two; it was
// refused as a Go program, with advice to use the mode the inner run used (review, helper-98).
// Another verb of qjump (agent, probe) is a Go program like any other (review, helper-100).
func nestedRun(main string, args []string) bool {
	return main == "github.com/qjump-net/qjump/cmd/qjump" && len(args) > 0 && args[0] == "run"
}

// secureExec says why the loader would run the program at path in secure-execution mode for
// this process, "" if it would not (secureExecFor on the file and this process's credentials).
func secureExec(path string) string {
	var st unix.Stat_t
	var fs unix.Statfs_t
	if unix.Stat(path, &st) != nil || unix.Statfs(path, &fs) != nil {
		return ""
	}
	_, capErr := unix.Getxattr(path, "security.capability", nil)
	f := execFile{mode: st.Mode, uid: st.Uid, gid: st.Gid, caps: capErr == nil, nosuid: fs.Flags&unix.ST_NOSUID != 0}
	return secureExecFor(f, ownCreds())
}

// execFile is what of a program's file decides secure execution.
type execFile struct {
	mode, uid, gid uint32
	caps           bool // file capabilities (security.capability)
	nosuid         bool // on a nosuid mount, which ignores the set-ID bits and the capabilities
}

// creds are the caller's ids, and whether it runs with no_new_privs (which ignores the set-ID
// bits of what it executes, and limits what its file capabilities grant: Docker's
// no-new-privileges, Kubernetes' allowPrivilegeEscalation: false, systemd's NoNewPrivileges).
type creds struct {
	ruid, euid, rgid, egid uint32
	noNewPrivs             bool
}

func ownCreds() creds {
	c := creds{ruid: uint32(os.Getuid()), euid: uint32(os.Geteuid()), rgid: uint32(os.Getgid()), egid: uint32(os.Getegid())}
	status, _ := os.ReadFile("/proc/self/status")
	c.noNewPrivs = bytes.Contains(status, []byte("\nNoNewPrivs:\t1"))
	return c
}

// secureExecFor is the kernel's rule for AT_SECURE (cap_bprm_creds_from_file), under which ld.so
// ignores a preload path with a slash: the new effective user is not the caller's real one, the
// new effective group not its real one, or file capabilities are granted to a caller whose real
// user is not root. A set-user-ID file makes the new effective user its owner, a set-group-ID
// one (with group execute) its group, unless the mount is nosuid or the caller has no_new_privs;
// file capabilities count unless the mount is nosuid, no_new_privs or not (measured: a copy of cat
// with cap_net_raw=ep, run by a user with no_new_privs, had AT_SECURE 1; review, helper-102).
// Debian's ping has cap_net_raw=ep: a user's `qjump run -- ping` ran on level 0 without a word
// (review, helper-98); the rule first compared effective ids, which missed a caller whose
// effective and real users differ (review, helper-100).
//
// File capabilities are taken as secure whatever their bits: the kernel sets AT_SECURE only for
// an effective bit or a permitted set that grows, so a file with inheritable capabilities alone
// is refused where the shim would reach it. Refusing points to --mode cgroup, which reaches it
// too; running on level 0 without a word was the fault (review, helper-103).
func secureExecFor(f execFile, c creds) string {
	newEuid, newEgid := c.euid, c.egid
	honoured := !f.nosuid && !c.noNewPrivs
	if honoured && f.mode&unix.S_ISUID != 0 {
		newEuid = f.uid
	}
	if honoured && f.mode&unix.S_ISGID != 0 && f.mode&unix.S_IXGRP != 0 {
		newEgid = f.gid
	}
	switch {
	case newEuid != c.ruid && newEuid == c.euid:
		return fmt.Sprintf("run by a process whose effective user (%d) is not its real one (%d)", c.euid, c.ruid)
	case newEuid != c.ruid:
		return fmt.Sprintf("set-user-ID (owner %d)", f.uid)
	case newEgid != c.rgid && newEgid == c.egid:
		return fmt.Sprintf("run by a process whose effective group (%d) is not its real one (%d)", c.egid, c.rgid)
	case newEgid != c.rgid:
		return fmt.Sprintf("set-group-ID (group %d)", f.gid)
	case !f.nosuid && f.caps && c.ruid != 0: // no_new_privs limits what the capabilities grant, not AT_SECURE
		return "given file capabilities (security.capability)"
	}
	return ""
}

// goMain is the main package's path of the Go program at path, "" if it was not built by the Go
// toolchain.
func goMain(path string) string {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return ""
	}
	return bi.Path
}
