package apputil

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// execFailure is the shell's reading of exec's failure on path, which lookPath found: "no such
// file" means what runs CMD is missing (127, see missingInterpreter); a file exec refuses (no
// permission, as on a noexec mount; a format the kernel does not run) cannot be executed (126).
// Any other failure is not about CMD, and execFailure returns nil for the caller to report it.
func execFailure(name, path string, err error) error {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return nil
	}
	switch errno {
	case syscall.ENOENT:
		return missingInterpreter(name, path)
	case syscall.EACCES, syscall.ENOEXEC:
		return fmt.Errorf("%w: %s: %v", ErrCommandNotExecutable, name, errno)
	}
	return nil
}

// missingInterpreter explains exec's "no such file" for a CMD that is there: the interpreter or
// ELF loader it needs is not, named when it can be read (a script saved with Windows line endings
// names "/bin/sh\r"). A CMD removed since lookPath found it is simply not found.
func missingInterpreter(name, path string) error {
	if !exists(path) {
		return fmt.Errorf("%w: %s", ErrCommandNotFound, name)
	}
	interp, isELF := interpreterOf(path)
	if interp == "" || exists(interp) {
		// Unknown, or there: what is missing is further down (an interpreter's own interpreter).
		return fmt.Errorf("%w: %s is there, but not the interpreter (#! line) or ELF loader it needs", ErrInterpreterNotFound, name)
	}
	missing := fmt.Sprintf("interpreter %q (its #! line)", interp)
	if isELF {
		missing = fmt.Sprintf("ELF loader %q", interp)
	}
	return fmt.Errorf("%w: %s is there, but its %s is not", ErrInterpreterNotFound, name, missing)
}

// exists says whether path leads to a file, following symbolic links as exec does.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// interpreterOf says what the kernel runs to run path: the ELF loader it was linked for
// (PT_INTERP) if it is ELF, else the interpreter its #! line names; "" when it has neither.
func interpreterOf(path string) (interp string, isELF bool) {
	f, err := elf.Open(path)
	if err != nil {
		return shebang(path), false
	}
	defer f.Close()
	return elfLoader(f), true
}

// elfLoader is the loader f names in its PT_INTERP header; "" for a statically linked f.
func elfLoader(f *elf.File) string {
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b, _ := io.ReadAll(p.Open())
			return string(bytes.TrimRight(b, "\x00"))
		}
	}
	return ""
}

// shebang is the interpreter path's #! line names, read as the kernel reads it: within the first
// 256 bytes, after spaces and tabs, up to the next space, tab or end of line. A carriage return
// is part of the name, as the kernel takes it.
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256) // the kernel's BINPRM_BUF_SIZE
	n, _ := io.ReadFull(f, head)
	line, ok := strings.CutPrefix(string(head[:n]), "#!")
	if !ok {
		return ""
	}
	line, _, _ = strings.Cut(line, "\n")
	line = strings.TrimLeft(line, " \t")
	if i := strings.IndexAny(line, " \t"); i >= 0 {
		line = line[:i]
	}
	return line
}

// bourneShell runs a script without a #! line, as a shell and execvp(3) do: exec refuses such a
// file (ENOEXEC), and POSIX has the shell run it as a shell script instead.
const bourneShell = "/bin/sh"

// asShellScript is how CMD runs after exec refused path with ENOEXEC: /bin/sh with path and
// CMD's arguments, as execvp(3) runs it, when path is a script without a #! line; ok is false
// for a file that is not text, which bash refuses too ("cannot execute binary file", 126): an
// ELF of another machine, or a NUL in the first line.
func asShellScript(path string, argv []string) (shell string, shellArgv []string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, false
	}
	defer f.Close()
	head := make([]byte, 80) // bash's sample of a file it is about to run as a script
	n, _ := io.ReadFull(f, head)
	// As bash's check_binary_file: NUL in the first line, or anywhere in the sample of a file
	// that starts with #! (one the kernel refused: its interpreter's name is empty).
	sample := head[:n]
	if !bytes.HasPrefix(sample, []byte("#!")) {
		sample, _, _ = bytes.Cut(sample, []byte("\n"))
	}
	if bytes.HasPrefix(head[:n], []byte(elf.ELFMAG)) || bytes.IndexByte(sample, 0) >= 0 {
		return "", nil, false
	}
	return bourneShell, append([]string{bourneShell, path}, argv[1:]...), true
}
