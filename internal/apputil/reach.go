package apputil

import (
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"fmt"
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
	case isGo(path):
		return fmt.Errorf("%w: %s is a Go program, which makes its sockets without libc; use --mode cgroup", ErrPreloadCannotReach, path)
	}
	return nil
}

// isGo says whether the executable at path was built by the Go toolchain.
func isGo(path string) bool {
	_, err := buildinfo.ReadFile(path)
	return err == nil
}
