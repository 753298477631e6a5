package dataplane

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/stats"
)

// ThroughputOptions say how BenchThroughput compares iperf3 without and with QJump.
type ThroughputOptions struct {
	Rounds  int        // each arm once per round, the order reversed every other round
	Seconds int        // seconds of iperf3 per measurement
	Qjump   string     // the qjump binary: `qjump up` must run inside the sender's namespace
	Rate    model.Rate // R for qjump up (the CLI's default: DefaultBenchRate)
}

// DefaultBenchRate is the R the benchmark brings QJump up with unless told: above any device's
// speed, so that the root runs at the device's own speed, as on a host whose NIC is the slowest
// link. Below the device's speed the root caps there and cuts GSO packets into frames.
const DefaultBenchRate model.Rate = 100e9

// ThroughputCost is the iperf3 comparison of `qjump bench dataplane`: the device as it is, the
// cap QJump's tree puts on it alone (a plain HTB at Rcap with the root's burst), and QJump up.
type ThroughputCost struct {
	Rounds           int       `json:"rounds"`
	Seconds          int       `json:"run_s"`           // seconds of iperf3 per measurement
	CapRateBps       float64   `json:"cap_rate_bps"`    // Rcap: what the tree caps the device at
	CapBurstBytes    uint64    `json:"cap_burst_bytes"` // the root's burst, the plain HTB's too
	WithoutBps       []float64 `json:"without_bps"`
	CapBps           []float64 `json:"cap_bps"`
	WithBps          []float64 `json:"with_bps"`
	MedianWithoutBps float64   `json:"median_without_bps"`
	MedianCapBps     float64   `json:"median_cap_bps"`
	MedianWithBps    float64   `json:"median_with_bps"`
	// Ratio is QJump against the cap alone: what its program and tree cost beyond capping the
	// device at Rcap, which any scheduler that keeps the queue in the host must do.
	Ratio float64 `json:"ratio"`
	// RatioToWithout is QJump against the device as it is. On a veth, whose nominal 10 Gb/s is
	// less than it carries unshaped, the cap alone costs a share of that.
	RatioToWithout float64 `json:"ratio_to_without"`
}

// iperfPort is where the benchmark's iperf3 server listens in namespace B.
const iperfPort = 5201

// benchHosts is n for qjump up: with every level unlimited (benchUpArgs), what is measured is
// the program and the tree, not a budget.
const benchHosts = 2

func benchUpArgs(rate model.Rate) []string {
	return []string{"--hosts", strconv.Itoa(benchHosts), "--rate", strconv.FormatInt(int64(rate), 10), "--factors", "0=unlimited"}
}

// arm is one side of the throughput comparison.
type arm int

const (
	armWithout arm = iota // the device as it is
	armCap                // a plain HTB at the tree's Rcap and root burst
	armWith               // QJump up
)

// BenchThroughput measures what QJump costs a TCP flow: iperf3 between two namespaces joined by
// a veth pair, in turns without QJump, under the cap alone and with QJump on the sender's eth0.
// The namespaces (qjdp-bench-<pid>-a/b) are removed afterwards, also when ctx is cancelled.
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
	plan, err := benchPlan(p.A, opts.Rate)
	if err != nil {
		return res, err
	}
	res.CapRateBps, res.CapBurstBytes = float64(plan.Rcap), plan.RootBurst
	stop, err := startIperfServer(ctx, p.B)
	if err != nil {
		return res, err
	}
	defer stop()
	runs := map[arm]*[]float64{armWithout: &res.WithoutBps, armCap: &res.CapBps, armWith: &res.WithBps}
	for r := 0; r < opts.Rounds; r++ {
		// Reversed every other round: no arm always runs first in a warming or cooling host.
		order := []arm{armWithout, armCap, armWith}
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, a := range order {
			bps, err := measureThroughput(ctx, p, opts, plan, a)
			if err != nil {
				return res, err
			}
			*runs[a] = append(*runs[a], bps)
		}
	}
	res.MedianWithoutBps, res.MedianCapBps = stats.Median(res.WithoutBps), stats.Median(res.CapBps)
	res.MedianWithBps = stats.Median(res.WithBps)
	res.Ratio = res.MedianWithBps / res.MedianCapBps
	res.RatioToWithout = res.MedianWithBps / res.MedianWithoutBps
	return res, nil
}

// benchPlan is the tree `qjump up` with benchUpArgs(rate) builds on eth0 of namespace ns.
func benchPlan(ns string, rate model.Rate) (egressPlan, error) {
	d := config.Default()
	d.Model.Hosts, d.Model.Rate = benchHosts, rate
	var plan egressPlan
	var err error
	if nsErr := host.InNetns(ns, func() {
		var link netlink.Link
		if link, err = netlink.LinkByName("eth0"); err == nil {
			plan, err = planEgress(d, egressDeviceOf(link))
		}
	}); nsErr != nil {
		return plan, nsErr
	}
	return plan, err
}

// plainHTB is the kernel's own shaper at rate with burst, the commands that put it on dev in
// namespace ns: the cap a tree with that root puts on a device, without QJump.
func plainHTB(ns, dev string, rate model.Rate, burst uint64) [][]string {
	tc := []string{"ip", "netns", "exec", ns, "tc"}
	b := fmt.Sprintf("%db", burst)
	return [][]string{
		append(tc[:5:5], "qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "1"),
		append(tc[:5:5], "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb",
			"rate", fmt.Sprintf("%dbit", int64(rate)), "ceil", fmt.Sprintf("%dbit", int64(rate)),
			"burst", b, "cburst", b, "overhead", fmt.Sprint(int(model.FrameOverhead))),
	}
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
			return fmt.Errorf("not listening on port %d after %s", port, model.DurationText(timeout))
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

// measureThroughput runs one iperf3 TCP flow from A to B, A's eth0 set up as arm says.
func measureThroughput(ctx context.Context, p *nspair.Pair, opts ThroughputOptions, plan egressPlan, a arm) (float64, error) {
	switch a {
	case armWith:
		// down is deferred before up runs, so an up that an interrupt cuts short is undone too;
		// down on an interface that is not up does nothing.
		defer func() { _ = exec.Command("ip", "netns", "exec", p.A, opts.Qjump, "down", "--dev", "eth0").Run() }()
		up := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", p.A, opts.Qjump, "up", "--dev", "eth0"}, benchUpArgs(opts.Rate)...)...)
		if out, err := up.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("qjump up in %s: %v: %s", p.A, err, out)
		}
	case armCap:
		defer func() {
			_ = exec.Command("ip", "netns", "exec", p.A, "tc", "qdisc", "del", "dev", "eth0", "root").Run()
		}()
		for _, argv := range plainHTB(p.A, "eth0", plan.Rcap, plan.RootBurst) {
			if out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput(); err != nil {
				return 0, fmt.Errorf("plain HTB in %s: %s: %v: %s", p.A, strings.Join(argv[4:], " "), err, out)
			}
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
