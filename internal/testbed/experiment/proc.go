package experiment

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// proc is a program the experiment started in a namespace (a server, a bulk sender). Each runs in
// its own process group so that stopping it stops exactly what we started, children included.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  bytes.Buffer
	done chan struct{}
}

func start(name string, argv []string) (*proc, error) {
	p := &proc{name: name, cmd: exec.Command(argv[0], argv[1:]...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	return p, nil
}

// exited reports whether the program ended by itself (a server that failed to start does).
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stopGrace is how long a stopped program may take to finish: a probe server writes its arrivals
// (hundreds of thousands of rows in a full fan-in arm) after SIGTERM, on a machine that may be
// busy, and one killed half-way fails its arm.
const stopGrace = 5 * time.Second

// stop sends SIGTERM to the group, then SIGKILL if it is still there after stopGrace.
func (p *proc) stop() {
	if p == nil || p.exited() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopGrace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// wait waits for the program to end by itself, or stops it at ctx's end.
func (p *proc) wait(ctx context.Context) error {
	select {
	case <-p.done:
	case <-ctx.Done():
		p.stop()
		return ctx.Err()
	}
	if !p.cmd.ProcessState.Success() {
		return fmt.Errorf("%s: %s: %s", p.name, p.cmd.ProcessState, strings.TrimSpace(p.out.String()))
	}
	return nil
}

// procs stops everything started in one arm, in reverse order.
type procs []*proc

func (ps *procs) start(name string, argv []string) (*proc, error) {
	p, err := start(name, argv)
	if err == nil {
		*ps = append(*ps, p)
	}
	return p, err
}

func (ps *procs) stopAll() {
	for i := len(*ps) - 1; i >= 0; i-- {
		(*ps)[i].stop()
	}
	*ps = nil
}

// runOut runs argv to the end and returns its standard output.
func runOut(ctx context.Context, argv []string) (string, error) {
	p, err := start(argv[0], argv)
	if err != nil {
		return "", err
	}
	err = p.wait(ctx)
	return p.out.String(), err
}
