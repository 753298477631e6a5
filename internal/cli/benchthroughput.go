package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"time"
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

// benchPair is two namespaces joined by a veth pair, eth0 on both ends.
type benchPair struct {
	a, b, addrB string
}

func newBenchPair(ctx context.Context) (*benchPair, error) {
	pid := os.Getpid()
	p := &benchPair{a: fmt.Sprintf("qjdp-bench-%d-a", pid), b: fmt.Sprintf("qjdp-bench-%d-b", pid), addrB: "198.19.255.2"}
	va, vb := fmt.Sprintf("qjdpb%da", pid), fmt.Sprintf("qjdpb%db", pid)
	steps := [][]string{
		{"netns", "add", p.a}, {"netns", "add", p.b},
		{"link", "add", va, "netns", p.a, "type", "veth", "peer", "name", vb, "netns", p.b},
		{"-n", p.a, "link", "set", va, "name", "eth0"}, {"-n", p.b, "link", "set", vb, "name", "eth0"},
		{"-n", p.a, "addr", "add", "198.19.255.1/24", "dev", "eth0"},
		{"-n", p.b, "addr", "add", p.addrB + "/24", "dev", "eth0"},
		{"-n", p.a, "link", "set", "eth0", "up"}, {"-n", p.b, "link", "set", "eth0", "up"},
	}
	for _, args := range steps {
		if out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput(); err != nil {
			p.remove()
			return nil, fmt.Errorf("set up benchmark namespaces: ip %v: %v: %s", args, err, out)
		}
	}
	return p, nil
}

// remove deletes both namespaces, which takes the veth pair and anything attached with them; the
// pins of an attached QJump are removed by the down that precedes it.
func (p *benchPair) remove() {
	_ = exec.Command("ip", "netns", "del", p.a).Run()
	_ = exec.Command("ip", "netns", "del", p.b).Run()
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
	defer p.remove()
	defer func() { _ = exec.Command("ip", "netns", "exec", p.a, self, "down", "--dev", "eth0").Run() }()
	server := exec.CommandContext(ctx, "ip", "netns", "exec", p.b, "iperf3", "-s", "-p", "5201")
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
			bps, err := p.measure(ctx, self, with, seconds)
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
	res.MedianWithoutBps, res.MedianWithBps = medianOf(res.WithoutBps), medianOf(res.WithBps)
	res.Ratio = res.MedianWithBps / res.MedianWithoutBps
	return res, nil
}

// measure runs one iperf3 TCP flow from a to b, with QJump attached to a's eth0 if with.
func (p *benchPair) measure(ctx context.Context, self string, with bool, seconds int) (float64, error) {
	if with {
		up := exec.CommandContext(ctx, "ip", "netns", "exec", p.a, self, "up", "--dev", "eth0",
			"--hosts", "2", "--rate", "100G", "--factors", "0=unlimited")
		if out, err := up.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("qjump up in %s: %v: %s", p.a, err, out)
		}
		defer func() { _ = exec.Command("ip", "netns", "exec", p.a, self, "down", "--dev", "eth0").Run() }()
	}
	out, err := exec.CommandContext(ctx, "ip", "netns", "exec", p.a, "iperf3", "-c", p.addrB, "-p", "5201",
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

func medianOf(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
