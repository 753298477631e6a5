package apputil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
)

// forwarded are the signals `run --mode cgroup` passes on to CMD, so that stopping qjump stops
// the program. SIGCHLD and SIGURG (the Go runtime's) are not CMD's business. SIGTSTP is not
// caught: ^Z must stop qjump as well as CMD (they share the terminal's process group), or the
// shell waits on a qjump that never stops and the terminal hangs.
var forwarded = []os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGUSR1,
	syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGWINCH, syscall.SIGCONT,
}

// forwardable is forwarded less the signals qjump was started with ignored (nohup's SIGHUP, a
// shell's trap "" INT): catching one would undo the ignoring, which CMD inherits otherwise.
func forwardable() []os.Signal {
	var out []os.Signal
	for _, sig := range forwarded {
		if !signal.Ignored(sig) {
			out = append(out, sig)
		}
	}
	return out
}

// Stdio is where CMD's standard streams go.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// ErrInterrupted is RunCgroup's error when SIGINT or SIGTERM came before CMD started: CMD was
// not started, and what run had made for it is removed (the error says so, or what is left).
var ErrInterrupted = errors.New("interrupted before CMD started")

// interrupts are the signals that stop `run --mode cgroup` before CMD starts, less those qjump was
// started with ignored (forwardable says why; Go keeps an inherited SIG_IGN for SIGINT, not for
// SIGTERM).
func interrupts() []os.Signal {
	var out []os.Signal
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM} {
		if !signal.Ignored(sig) {
			out = append(out, sig)
		}
	}
	return out
}

// RunCgroup runs CMD inside a transient cgroup with the programs of s attached, forwards signals
// to it and removes the cgroup afterwards. It returns how CMD ended; notes for the user (enforce
// refusals) go to stdio.Err. A SIGINT or SIGTERM before CMD starts (waiting for the state lock to
// set --max-level's ceiling, most likely: an up or a reload may hold it for seconds) does not end
// the process, which would leave the cgroup until the next run swept it: what was made is
// removed and the error is ErrInterrupted.
func RunCgroup(r Run, stdio Stdio) (st Status, err error) {
	// Caught until RunCgroup returns: a second Ctrl-C must not cut the cleanup short either.
	ctx, stop := context.Background(), context.CancelFunc(func() {})
	if sigs := interrupts(); len(sigs) > 0 { // none would catch every signal, the runtime's SIGURG too
		ctx, stop = signal.NotifyContext(ctx, sigs...)
	}
	defer stop()
	path, err := lookPath(r.Command[0])
	if err != nil {
		return Status{}, err
	}
	root, unmount, err := CgroupRoot()
	if err != nil {
		return Status{}, err
	}
	defer unmount()
	noteLeftLimits(root, stdio)
	cg, err := newTransientCgroup(ctx, filepath.Join(root, Slice))
	if errors.Is(err, ErrInterrupted) {
		return Status{}, interruptError(fmt.Sprintf("%v before %s started: not run, no cgroup made", context.Cause(ctx), r.Command[0]))
	}
	if err != nil {
		return Status{}, err
	}
	// Cleanup in order: what CMD left is killed while its programs and ceiling still hold (after
	// runIn below), then the ceiling goes, then the programs, then the cgroup. What cannot be
	// undone is said.
	defer func() {
		rmErr := cg.remove()
		if rmErr != nil {
			fmt.Fprintf(stdio.Err, "qjump: %v\n", rmErr)
		}
		if errors.Is(err, ErrInterrupted) {
			err = interrupted(ctx, r.Command[0], CgroupName(root, cg.path), rmErr == nil)
		}
	}()
	a, err := attach(cg.path, r.Settings)
	if err != nil {
		return Status{}, err
	}
	defer a.Close()
	if ctx.Err() != nil {
		return Status{}, ErrInterrupted
	}
	if r.MaxLevel != nil {
		err := setCeilingContext(ctx, cg.path, r.MaxLevel)
		switch {
		case err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled):
			// Given up waiting for the lock: nothing was set, and clearing would wait for it too.
			return Status{}, ErrInterrupted
		case err != nil:
			_ = setCeiling(cg.path, nil) // whatever part of it was set
			return Status{}, err
		}
		defer setCeiling(cg.path, nil)
	}
	st, err = runIn(ctx, cg, path, r.Command, stdio)
	// Whether CMD ended or could not start: nothing else ever runs in the cgroup.
	if endErr := cg.end(); endErr != nil {
		fmt.Fprintf(stdio.Err, "qjump: %v\n", endErr)
	}
	if n := a.Refused(); n > 0 {
		fmt.Fprintf(stdio.Err, "qjump: refused %d attempt(s) by the program to set SO_PRIORITY: --enforce keeps level %d\n", n, r.Level)
	}
	return st, err
}

// interrupted is ErrInterrupted as the user reads it: the signal, that CMD was not started and
// whether its cgroup is gone.
func interrupted(ctx context.Context, cmd, cgroup string, removed bool) error {
	left := "removed its cgroup " + cgroup
	if !removed {
		left = "its cgroup " + cgroup + " is left (above), the next run removes it"
	}
	return interruptError(fmt.Sprintf("%v before %s started: not run; %s", context.Cause(ctx), cmd, left))
}

// interruptError is an ErrInterrupted that reads as its own text.
type interruptError string

func (e interruptError) Error() string        { return string(e) }
func (e interruptError) Is(target error) bool { return target == ErrInterrupted }

// noteLeftLimits says which limits of the caller's cgroup CMD will not be under, if any.
func noteLeftLimits(root string, stdio Stdio) {
	rel, err := host.OwnCgroupPath()
	if err != nil {
		return
	}
	if left := leftLimits(root, filepath.Join(root, rel)); len(left) > 0 {
		fmt.Fprintf(stdio.Err, "qjump: note: CMD runs in its own cgroup below /%s, outside this one's limits: %s; "+
			"to keep them, give this cgroup the level (qjump assign) or use --mode preload (docs/apputil.md)\n",
			Slice, strings.Join(left, ", "))
	}
}

// cgroupCmd is the command that runs path with argv directly in the cgroup.
func cgroupCmd(cg *transientCgroup, path string, argv []string, stdio Stdio) *exec.Cmd {
	cmd := &exec.Cmd{Path: path, Args: argv, Env: cgroupEnv(os.Environ()), Stdin: stdio.In, Stdout: stdio.Out, Stderr: stdio.Err}
	// If qjump itself is killed (SIGKILL, which it cannot forward), CMD goes too rather than run
	// on without its level: the cgroup programs are detached when qjump's descriptors close.
	// Pdeathsig follows the thread that forked, so that thread is kept until CMD ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(cg.dir.Fd()), Pdeathsig: syscall.SIGKILL}
	return cmd
}

// runIn starts CMD directly in the cgroup (clone3 with CLONE_INTO_CGROUP, so not one socket is
// made outside it) and waits for it, passing on signals meanwhile.
// A signal of ctx's that came before the start ends it with ErrInterrupted, CMD not started.
func runIn(ctx context.Context, cg *transientCgroup, path string, argv []string, stdio Stdio) (Status, error) {
	cmd := cgroupCmd(cg, path, argv, stdio)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, forwardable()...)
	defer signal.Stop(sigs)
	// From here a signal is also CMD's, forwarded once it runs; one that came before is not.
	if ctx.Err() != nil {
		return Status{}, ErrInterrupted
	}
	err := cmd.Start()
	if errors.Is(err, syscall.ENOEXEC) {
		if shell, shellArgv, ok := asShellScript(path, argv); ok {
			cmd = cgroupCmd(cg, shell, shellArgv, stdio)
			err = cmd.Start()
		}
	}
	if err != nil {
		if cmdErr := execFailure(argv[0], path, err); cmdErr != nil {
			return Status{}, cmdErr
		}
		return Status{}, fmt.Errorf("start %s in cgroup %s: %w", argv[0], cg.path, err)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				if !fromTerminal(sig) {
					_ = cmd.Process.Signal(sig)
				}
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	if st, ok := statusOf(cmd.ProcessState); ok {
		return st, nil
	}
	return Status{}, fmt.Errorf("wait for %s: %w", argv[0], err)
}

// fromTerminal says whether sig was most likely sent by the terminal to its whole foreground
// process group, CMD included: qjump and CMD share a process group, so forwarding ^C would make
// CMD see it twice.
func fromTerminal(sig os.Signal) bool {
	switch sig {
	case syscall.SIGINT, syscall.SIGQUIT, syscall.SIGWINCH:
	default:
		return false
	}
	for _, fd := range []int{0, 1, 2} {
		if fg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil {
			return fg == unix.Getpgrp()
		}
	}
	return false
}
