package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/probe"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/vishvananda/netlink"
)

// bulkLevel is the bulk traffic's level, as in the paper: the lowest; latency-sensitive traffic
// goes at model.TopLevel.
const bulkLevel = 0

// bulk starts one iperf3 TCP flow from host `from` to host `to` at the bulk level, with the
// configured congestion control, lasting d at most; stopAll ends it earlier.
func (env *Env) bulk(ctx context.Context, from, to int, d time.Duration) error {
	port := env.nextPort()
	srv := env.tb.Exec(to, env.atLevel(bulkLevel, false, "iperf3", "-s", "-1", "-p", strconv.Itoa(port))...)
	ps, err := env.procs.start(fmt.Sprintf("iperf3 server on h%d", to), srv)
	if err != nil {
		return err
	}
	if err := env.awaitTCP(ctx, ps, tcpState{host: to, state: netlink.TCP_LISTEN, port: port, n: 1}); err != nil {
		return err
	}
	secs := strconv.Itoa(int(d.Seconds()) + 1)
	cli := env.tb.Exec(from, env.atLevel(bulkLevel, false, "iperf3", "-c", env.addr(to), "-p", strconv.Itoa(port),
		"-t", secs, "-C", env.opts.BulkCC, "-i", "0")...)
	p, err := env.procs.start(fmt.Sprintf("iperf3 h%d→h%d", from, to), cli)
	if err != nil {
		return err
	}
	// iperf3 connects its control connection, then the data stream with the congestion control
	// set: once both are up the bulk flow runs (a refused congestion control ends it before).
	if err := env.awaitTCP(ctx, p, tcpState{host: from, state: netlink.TCP_ESTABLISHED, port: port, remote: true, n: 2}); err != nil {
		return err
	}
	env.logf("       bulk h%d→h%d flowing", from, to)
	return nil
}

// probeSpec is one probe measurement.
type probeSpec struct {
	arm      string
	from, to int
	count    int
	interval time.Duration
	size     int
}

// probeRR runs our request/response probe from `from` to `to` at the top level and records both
// the request's one-way latency and the round trip.
func (env *Env) probeRR(ctx context.Context, s probeSpec) error {
	port := env.nextPort()
	srv, err := env.startProbeServer(ctx, s.to, env.hostPort(s.to, port), "--out", os.DevNull)
	if err != nil {
		return err
	}
	defer srv.stop()
	raw := filepath.Join(env.opts.OutDir, "raw", fmt.Sprintf("%s-probe-h%d-h%d.csv", s.arm, s.from, s.to))
	argv := env.tb.Exec(s.from, env.atLevel(model.TopLevel, true, testbed.Binary, "probe", "client",
		"--to", env.hostPort(s.to, port), "--mode", string(probe.RequestResponse), "--count", strconv.Itoa(s.count),
		"--interval", s.interval.String(), "--size", strconv.Itoa(s.size), "--timeout", "500ms",
		"--sender", strconv.Itoa(s.from), "--out", raw)...)
	if _, err := runOut(ctx, argv); err != nil {
		return fmt.Errorf("probe h%d→h%d: %w", s.from, s.to, err)
	}
	// A request the server's socket dropped would count as lost by the network.
	if err := stopServer(srv); err != nil {
		return err
	}
	rows, err := readProbeCSV(raw, s)
	if err != nil {
		return err
	}
	env.record(rows)
	return nil
}

func readProbeCSV(path string, s probeSpec) ([]results.Row, error) {
	samples, err := probe.ReadFile(path, probe.ReadClientCSV)
	if err != nil {
		return nil, err
	}
	var rows []results.Row
	for _, p := range samples {
		base := results.Row{Arm: s.arm, Tool: toolProbe, Sender: s.from, Seq: p.Seq, SendNS: p.SendNS, Lost: p.Lost}
		o, r, n := base, base, base
		o.Metric, o.LatencyNS = metricOneWay, p.OneWayNS()
		r.Metric, r.LatencyNS = metricRTT, p.RTTNS()
		// network: the request from the sender's kernel transmit stamp (after its qdisc) to the
		// server's kernel receive stamp, the part QJump's bounds are about.
		n.Metric, n.LatencyNS = metricNetwork, p.ServerNS-p.TxNS
		n.Lost = p.Lost || p.TxNS == 0 || p.ServerNS == 0
		rows = append(rows, o, n, r)
	}
	return rows, nil
}

// startProbeServer starts a probe server on host `on` listening at addr with extra arguments, and
// returns once it listens: starting it through nsenter and qjump run takes a variable time on a
// loaded machine, and a probe sent before it listens would be counted as lost. The server says so
// by creating its --ready file; nothing is sent to find out, so no probe lands in its arrivals.
func (env *Env) startProbeServer(ctx context.Context, on int, addr string, extra ...string) (*proc, error) {
	ready := filepath.Join(env.opts.OutDir, "raw", "probe-server-"+strings.ReplaceAll(addr, ":", "-")+".ready")
	argv := append([]string{testbed.Binary, "probe", "server", "--listen", addr, "--ready", ready}, extra...)
	srv, err := env.procs.start("probe server", env.tb.Exec(on, env.atLevel(model.TopLevel, true, argv...)...))
	if err != nil {
		return nil, err
	}
	defer os.Remove(ready)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if _, err := os.Stat(ready); err == nil {
			return srv, nil
		}
		if srv.exited() {
			return nil, fmt.Errorf("probe server %s: %s", addr, strings.TrimSpace(srv.out.String()))
		}
		if err := sleep(ctx, 10*time.Millisecond); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("probe server %s was not listening within 10s", addr)
}

// stopServer stops a probe server and returns its failure, if it had one: a server whose socket
// dropped probes (probe.ErrDropped) exits non-zero, and its arm must not be read as measured.
func stopServer(srv *proc) error {
	srv.stop()
	if !srv.cmd.ProcessState.Success() {
		return fmt.Errorf("probe server: %s: %s", srv.cmd.ProcessState, strings.TrimSpace(srv.out.String()))
	}
	return nil
}

var pingReply = regexp.MustCompile(`icmp_seq=(\d+) .*time=([0-9.]+) ms`)

// ping runs the system's ping from `from` to `to` at the top level (it is a C program: qjump run
// puts it on the level with LD_PRELOAD) and records every round trip, lost ones included.
func (env *Env) ping(ctx context.Context, s probeSpec) error {
	interval := strconv.FormatFloat(s.interval.Seconds(), 'f', 4, 64)
	argv := env.tb.Exec(s.from, env.atLevel(model.TopLevel, false, "ping", "-n", "-c", strconv.Itoa(s.count),
		"-i", interval, "-W", "1", env.addr(s.to))...)
	out, err := runOut(ctx, argv)
	if err != nil && ctx.Err() != nil {
		return err
	}
	_ = os.WriteFile(filepath.Join(env.opts.OutDir, "raw", fmt.Sprintf("%s-ping-h%d-h%d.txt", s.arm, s.from, s.to)), []byte(out), 0o644)
	got := map[uint64]int64{}
	for _, m := range pingReply.FindAllStringSubmatch(out, -1) {
		seq, _ := strconv.ParseUint(m[1], 10, 64)
		ms, _ := strconv.ParseFloat(m[2], 64)
		got[seq] = int64(ms * 1e6)
	}
	if len(got) == 0 {
		return fmt.Errorf("ping h%d→h%d: no replies: %s", s.from, s.to, strings.TrimSpace(out))
	}
	var rows []results.Row
	for seq := uint64(1); seq <= uint64(s.count); seq++ {
		ns, ok := got[seq]
		rows = append(rows, results.Row{Arm: s.arm, Tool: toolPing, Metric: metricRTT, Sender: s.from, Seq: seq,
			LatencyNS: ns, Lost: !ok})
	}
	env.record(rows)
	return nil
}
