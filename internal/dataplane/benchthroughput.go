package dataplane

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/stats"
)

// ThroughputOptions say how BenchThroughput compares iperf3 without and with QJump.
type ThroughputOptions struct {
	Rounds  int    // each side of the A/B once per round, in ABBA order
	Seconds int    // seconds of iperf3 per measurement
	Qjump   string // the qjump binary: `qjump up` must run inside the sender's namespace
}

// ThroughputCost is the A/B iperf3 comparison of `qjump bench dataplane`.
type ThroughputCost struct {
	Rounds           int       `json:"rounds"`
	Seconds          int       `json:"run_s"` // seconds of iperf3 per measurement
	WithoutBps       []float64 `json:"without_bps"`
	WithBps          []float64 `json:"with_bps"`
	MedianWithoutBps float64   `json:"median_without_bps"`
	MedianWithBps    float64   `json:"median_with_bps"`
	Ratio            float64   `json:"ratio"`
}

// iperfPort is where the benchmark's iperf3 server listens in namespace B.
const iperfPort = 5201

// BenchThroughput measures what QJump costs a TCP flow: iperf3 between two namespaces joined by
// a veth pair, alternately without and with QJump on the sender's eth0 (every level unlimited, so
// what is measured is the program, not a budget). The namespaces (qjdp-bench-<pid>-a/b) are
// removed afterwards, also when ctx is cancelled.
func BenchThroughput(ctx context.Context, opts ThroughputOptions) (ThroughputCost, error) {
	res := ThroughputCost{Rounds: opts.Rounds, Seconds: opts.Seconds}
	if _, err := exec.LookPath("iperf3"); err != nil {
		return res, errors.New("bench dataplane needs iperf3 for the throughput part: apt-get install iperf3, or use --skip-throughput")
	}
	p, err := nspair.New(ctx, fmt.Sprintf("qjdp-bench-%d-", os.Getpid()), "198.19.255.1", "198.19.255.2")
	if err != nil {
		return res, err
	}
	defer p.Remove()
	stop, err := startIperfServer(ctx, p.B)
	if err != nil {
		return res, err
	}
	defer stop()
	for r := 0; r < opts.Rounds; r++ {
		// ABBA order: neither side always runs first in a warming or cooling host.
		order := []bool{false, true}
		if r%2 == 1 {
			order = []bool{true, false}
		}
		for _, with := range order {
			bps, err := measureThroughput(ctx, p, opts, with)
			if err != nil {
				return res, err
			}
			if with {
				res.WithBps = append(res.WithBps, bps)
			} else {
				res.WithoutBps = append(res.WithoutBps, bps)
			}
		}
	}
	res.MedianWithoutBps, res.MedianWithBps = stats.Median(res.WithoutBps), stats.Median(res.WithBps)
	res.Ratio = res.MedianWithBps / res.MedianWithoutBps
	return res, nil
}

// startIperfServer runs an iperf3 server in namespace ns and returns once it listens, with the
// function that stops it.
func startIperfServer(ctx context.Context, ns string) (stop func(), err error) {
	server := exec.CommandContext(ctx, "ip", "netns", "exec", ns, "iperf3", "-s", "-p", strconv.Itoa(iperfPort))
	if err := server.Start(); err != nil {
		return nil, fmt.Errorf("start iperf3 server: %w", err)
	}
	stop = func() { _ = server.Process.Kill(); _ = server.Wait() }
	// `ip netns exec` execs iperf3 in place, so the server's pid sees the namespace's sockets.
	if err := waitListening(ctx, server.Process.Pid, iperfPort, 5*time.Second); err != nil {
		stop()
		return nil, fmt.Errorf("start iperf3 server: %w", err)
	}
	return stop, nil
}

// waitListening polls the TCP sockets of pid's network namespace until one listens on port, or
// the deadline passes.
func waitListening(ctx context.Context, pid, port int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if listening(pid, port) {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: %w", ctx.Err())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not listening on port %d after %s", port, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// listening reads /proc/<pid>/net/tcp{,6}: a row whose local port is port and whose state is
// 0A (TCP_LISTEN). Until `ip` has entered the namespace and exec'd iperf3, pid's sockets are the
// host's, so those are not read.
func listening(pid, port int) bool {
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err != nil || strings.TrimSpace(string(comm)) != "iperf3" {
		return false
	}
	want := fmt.Sprintf(":%04X", port)
	for _, table := range []string{"tcp", "tcp6"} {
		f, err := os.Open(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			continue
		}
		s := bufio.NewScanner(f)
		for s.Scan() {
			fields := strings.Fields(s.Text())
			if len(fields) > 3 && strings.HasSuffix(fields[1], want) && fields[3] == "0A" {
				f.Close()
				return true
			}
		}
		f.Close()
	}
	return false
}

// measureThroughput runs one iperf3 TCP flow from A to B, with QJump attached to A's eth0 if with.
func measureThroughput(ctx context.Context, p *nspair.Pair, opts ThroughputOptions, with bool) (float64, error) {
	if with {
		// down is deferred before up runs, so an up that an interrupt cuts short is undone too;
		// down on an interface that is not up does nothing.
		defer func() { _ = exec.Command("ip", "netns", "exec", p.A, opts.Qjump, "down", "--dev", "eth0").Run() }()
		up := exec.CommandContext(ctx, "ip", "netns", "exec", p.A, opts.Qjump, "up", "--dev", "eth0",
			"--hosts", "2", "--rate", "100G", "--factors", "0=unlimited")
		if out, err := up.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("qjump up in %s: %v: %s", p.A, err, out)
		}
	}
	out, err := exec.CommandContext(ctx, "ip", "netns", "exec", p.A, "iperf3", "-c", p.AddrB, "-p", strconv.Itoa(iperfPort),
		"-t", strconv.Itoa(opts.Seconds), "-J").Output()
	if ctx.Err() != nil {
		return 0, fmt.Errorf("interrupted: %w", ctx.Err())
	}
	if err != nil {
		return 0, fmt.Errorf("iperf3 client: %w: %s", err, out)
	}
	var r struct {
		End struct {
			SumReceived struct {
				BitsPerSecond float64 `json:"bits_per_second"`
			} `json:"sum_received"`
		} `json:"end"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, fmt.Errorf("read iperf3 result: %w", err)
	}
	return r.End.SumReceived.BitsPerSecond, nil
}
