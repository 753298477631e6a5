package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/stats"
)

// throughputResult is the A/B iperf3 comparison of `qjump bench dataplane`.
type throughputResult struct {
	Rounds           int       `json:"rounds"`
	Seconds          int       `json:"seconds"`
	WithoutBps       []float64 `json:"without_bps"`
	WithBps          []float64 `json:"with_bps"`
	MedianWithoutBps float64   `json:"median_without_bps"`
	MedianWithBps    float64   `json:"median_with_bps"`
	Ratio            float64   `json:"ratio"`
}

// newBenchPair makes the two namespaces the throughput comparison runs between.
func newBenchPair(ctx context.Context) (*nspair.Pair, error) {
	return nspair.New(ctx, fmt.Sprintf("qjdp-bench-%d-", os.Getpid()), "198.19.255.1", "198.19.255.2")
}

func benchThroughput(ctx context.Context, rounds, seconds int) (throughputResult, error) {
	res := throughputResult{Rounds: rounds, Seconds: seconds}
	if _, err := exec.LookPath("iperf3"); err != nil {
		return res, errors.New("bench dataplane needs iperf3 for the throughput part: apt-get install iperf3, or use --skip-throughput")
	}
	self, err := os.Executable()
	if err != nil {
		return res, fmt.Errorf("find qjump binary: %w", err)
	}
	p, err := newBenchPair(ctx)
	if err != nil {
		return res, err
	}
	defer p.Remove()
	server := exec.CommandContext(ctx, "ip", "netns", "exec", p.B, "iperf3", "-s", "-p", "5201")
	if err := server.Start(); err != nil {
		return res, fmt.Errorf("start iperf3 server: %w", err)
	}
	defer func() { _ = server.Process.Kill(); _ = server.Wait() }()
	time.Sleep(300 * time.Millisecond)
	for r := 0; r < rounds; r++ {
		// ABBA order: neither side always runs first in a warming or cooling host.
		order := []bool{false, true}
		if r%2 == 1 {
			order = []bool{true, false}
		}
		for _, with := range order {
			bps, err := measureThroughput(ctx, p, self, with, seconds)
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

// measureThroughput runs one iperf3 TCP flow from A to B, with QJump attached to A's eth0 if with.
func measureThroughput(ctx context.Context, p *nspair.Pair, self string, with bool, seconds int) (float64, error) {
	if with {
		// down is deferred before up runs, so an up that an interrupt cuts short is undone too;
		// down on an interface that is not up does nothing.
		defer func() { _ = exec.Command("ip", "netns", "exec", p.A, self, "down", "--dev", "eth0").Run() }()
		up := exec.CommandContext(ctx, "ip", "netns", "exec", p.A, self, "up", "--dev", "eth0",
			"--hosts", "2", "--rate", "100G", "--factors", "0=unlimited")
		if out, err := up.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("qjump up in %s: %v: %s", p.A, err, out)
		}
	}
	out, err := exec.CommandContext(ctx, "ip", "netns", "exec", p.A, "iperf3", "-c", p.AddrB, "-p", "5201",
		"-t", strconv.Itoa(seconds), "-J").Output()
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
