package apputil

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Status is how CMD ended: an exit code, or the signal that killed it.
type Status struct {
	Code   int
	Signal syscall.Signal // non-zero: CMD died of this signal
}

func statusOf(ps *os.ProcessState) (Status, bool) {
	if ps == nil {
		return Status{}, false
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return Status{Code: ps.ExitCode()}, true
	}
	if ws.Signaled() {
		return Status{Signal: ws.Signal()}, true
	}
	return Status{Code: ws.ExitStatus()}, true
}

// ShellCode is the status a shell reports for st: the code, or 128 + the signal.
func (st Status) ShellCode() int {
	if st.Signal != 0 {
		return 128 + int(st.Signal)
	}
	return st.Code
}

// DieLike ends this process the way CMD ended, so that whoever waits for qjump sees CMD's death
// signal and not an exit code. The Go runtime handles several signals itself (it prints a
// traceback for SIGQUIT and SIGABRT), so the signal's default action is restored with a raw
// sigaction, unblocked on this thread and sent to it. Core dumps are switched off first: CMD
// dumped its own core if it was going to. It returns only if the signal did not kill (a signal
// whose default is to be ignored); the caller then exits with ShellCode.
func (st Status) DieLike() {
	if st.Signal == 0 {
		return
	}
	runtime.LockOSThread()
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	var dfl [4]uint64 // struct sigaction {handler = SIG_DFL, flags, restorer, mask}
	_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(st.Signal), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	set := uint64(1) << (uint(st.Signal) - 1)
	_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_UNBLOCK, uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0)
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), st.Signal)
}
