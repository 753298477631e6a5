package machine

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// Process is the stall monitor running as `qjump testbed stalls` (Record's reason for a process
// of its own), writing its stalls to a file when told to stop.
type Process struct {
	cmd   *exec.Cmd
	stdin interface{ Close() error }
	out   string
}

// StartProcess starts binary (a qjump) as the stall monitor writing to out. It ends when Stop
// closes its standard input, and so also when this process dies.
func StartProcess(binary, out string) (*Process, error) {
	cmd := exec.Command(binary, "testbed", "stalls", "--out", out, "--threshold", DefaultThreshold.String(), "--for", "24h")
	stdin, err := cmd.StdinPipe()
	if err == nil {
		cmd.Stderr = os.Stderr
		err = cmd.Start()
	}
	if err != nil {
		return nil, fmt.Errorf("start the stall monitor: %w", err)
	}
	return &Process{cmd: cmd, stdin: stdin, out: out}, nil
}

// Stop tells the monitor to end, waits for it to write its file (10 s at most) and reads it.
func (p *Process) Stop() ([]Stall, error) {
	_ = p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return nil, fmt.Errorf("stall monitor: %w", err)
		}
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
		return nil, fmt.Errorf("stall monitor: did not end within 10 s of being told to")
	}
	return ReadCSV(p.out)
}
