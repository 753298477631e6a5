package apputil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Mode is how `qjump run` puts a program on its level.
type Mode string

const (
	// ModePreload preloads the shim: any dynamically linked program, no privilege needed for
	// levels 0..6.
	ModePreload Mode = "preload"
	// ModeCgroup runs the program in a transient cgroup whose eBPF programs set the priority of
	// every socket: static binaries and containers too; needs root.
	ModeCgroup Mode = "cgroup"
)

// ErrCommandNotFound is returned when CMD is not there; the shell's status for it is 127.
var ErrCommandNotFound = errors.New("command not found")

// ErrInterpreterNotFound is returned when CMD is there but what the kernel runs to run it is not:
// the interpreter its #! line names, or the ELF loader it was linked for. exec says "no such file"
// of CMD itself then; the shell's status for it is 127 as well (bash: "cannot execute: required
// file not found").
var ErrInterpreterNotFound = errors.New("cannot execute: required file not found")

// ErrCommandNotExecutable is returned when CMD exists but cannot be run; the shell's status for it
// is 126.
var ErrCommandNotExecutable = errors.New("command not executable")

// Run describes one `qjump run`.
type Run struct {
	Settings
	Mode    Mode
	Command []string // CMD and its arguments
}

// lookPath resolves CMD the way a shell does, with the shell's two failure kinds: 127 when there
// is no such command, 126 when the name leads to something that cannot be run (a directory, a file
// without execute permission, a path through a file), which bash reports with the same reason.
func lookPath(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err == nil {
		return path, nil
	}
	if errors.Is(err, exec.ErrDot) {
		// Found, but through a relative directory in PATH, which Go's os/exec refuses to run (a
		// command planted in the working directory); "not found" was untrue (review, helper-75).
		return "", fmt.Errorf("%w: %s: found as %s, through a relative directory in PATH, which qjump does not run: "+
			"give its path, ./%s", ErrCommandNotExecutable, name, path, filepath.Clean(path))
	}
	if errors.Is(err, exec.ErrNotFound) {
		if file := inPathNotExecutable(name); file != "" {
			// bash says so too (126), where exec.LookPath passes the file over as not found.
			return "", fmt.Errorf("%w: %s: %s has no execute permission", ErrCommandNotExecutable, name, file)
		}
	}
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s", ErrCommandNotFound, name)
	}
	var lookErr *exec.Error
	if errors.As(err, &lookErr) {
		err = lookErr.Err // "is a directory", without exec's quoting of the name
	}
	return "", fmt.Errorf("%w: %s: %v", ErrCommandNotExecutable, name, err)
}

// inPathNotExecutable is the first regular file called name in a directory of PATH, for a name
// without a slash that PATH gives no executable of; "" if there is none.
func inPathNotExecutable(name string) string {
	if strings.Contains(name, "/") {
		return ""
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		file := filepath.Join(dir, name)
		if fi, err := os.Stat(file); err == nil && fi.Mode().IsRegular() {
			return file
		}
	}
	return ""
}

// ExecPreload replaces this process with CMD, the shim preloaded. It returns only on failure:
// afterwards CMD is the process, so its exit status and signals are the caller's without relay.
func ExecPreload(r Run, environ []string) error {
	path, err := lookPath(r.Command[0])
	if err != nil {
		return err
	}
	if err := checkLevelCapability(r.Level); err != nil {
		return err
	}
	if err := checkPreloadReaches(path, r.Command[1:]); err != nil {
		return err
	}
	shim, err := SharedObject()
	if err != nil {
		return err
	}
	env := preloadEnv(environ, shim, r.Settings)
	err = syscall.Exec(path, r.Command, env)
	if errors.Is(err, syscall.ENOEXEC) {
		if shell, argv, ok := asShellScript(path, r.Command); ok {
			// The shim reaches the script's commands through the shell, which is dynamic.
			err = syscall.Exec(shell, argv, env)
		}
	}
	if cmdErr := execFailure(r.Command[0], path, err); cmdErr != nil {
		return cmdErr
	}
	return fmt.Errorf("exec %s: %w", r.Command[0], err)
}
