package ptp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrNotInstalled is a missing ptp4l or unshare.
var ErrNotInstalled = errors.New("not installed")

// masterReady is the line with which ptp4l says it serves time.
const masterReady = "assuming the grand master role"

// Run starts ptp4l in the role opts.Role on opts.Interface and returns the slave's samples (none
// for a master) once opts.For passes, opts.Limit samples are in, or ctx ends; ptp4l is stopped in
// every case. log, if not nil, gets ptp4l's output as it comes.
func Run(ctx context.Context, opts Options, log io.Writer) ([]Sample, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	for _, prog := range []string{"ptp4l", "unshare"} {
		if _, err := exec.LookPath(prog); err != nil {
			return nil, fmt.Errorf("%s: %w: install linuxptp and util-linux (scripts/deps)", prog, ErrNotInstalled)
		}
	}
	dir, err := os.MkdirTemp("", "qjump-ptp4l-")
	if err != nil {
		return nil, fmt.Errorf("make a directory for ptp4l: %w", err)
	}
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, "ptp4l.cfg")
	text := Config(opts, filepath.Join(dir, "ptp4l.sock"), majorVersion(ctx) >= 4)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		return nil, fmt.Errorf("write ptp4l config: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, opts.For)
	defer cancel()
	cmd := command(ctx, cfg, opts.Interface)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start ptp4l: %w", err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start ptp4l: %w", err)
	}
	samples, tail := collect(out, opts, cancel, log)
	werr := cmd.Wait()
	if ctx.Err() == nil && len(samples) < opts.Limit {
		// ptp4l ended by itself: that is a failure (a bad interface, a port it cannot open).
		return samples, fmt.Errorf("ptp4l exited: %v: %s", werr, strings.Join(tail, " | "))
	}
	return samples, nil
}

// majorVersion is ptp4l's major version (ptp4l -v prints e.g. 3.1.1), 0 if it does not say.
func majorVersion(ctx context.Context) int {
	out, err := exec.CommandContext(ctx, "ptp4l", "-v").Output()
	if err != nil {
		return 0
	}
	major, _, _ := strings.Cut(strings.TrimSpace(string(out)), ".")
	n, _ := strconv.Atoi(major)
	return n
}

// command is ptp4l in its own IPC namespace (see the package doc) and process group, stopped by
// SIGTERM, then SIGKILL, when ctx ends, and killed if the runner dies.
func command(ctx context.Context, cfg, iface string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "unshare", "--ipc", "ptp4l", "-f", cfg, "-i", iface, "-m", "-q")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// collect reads ptp4l's output until it ends, keeping the samples (up to opts.Limit, then it stops
// ptp4l through stop) and the last lines for an error message.
func collect(out io.Reader, opts Options, stop context.CancelFunc, log io.Writer) ([]Sample, []string) {
	var samples []Sample
	var tail []string
	ready := opts.Ready
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if log != nil {
			fmt.Fprintln(log, line)
		}
		if tail = append(tail, line); len(tail) > 5 {
			tail = tail[1:]
		}
		s, ok := ParseLine(line)
		isReady := (opts.Role == Master && strings.Contains(line, masterReady)) || (opts.Role == Slave && ok)
		if isReady && ready != nil {
			ready()
			ready = nil
		}
		if !ok || opts.Role != Slave || len(samples) >= opts.Limit {
			continue
		}
		s.TimeNS = time.Now().UnixNano()
		if samples = append(samples, s); len(samples) == opts.Limit {
			stop()
		}
	}
	return samples, tail
}
