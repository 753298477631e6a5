// Package experiment runs the simulator's experiments: one flow-completion-time point (fct),
// the sweep of the QJump paper's Fig. 9 (fig9) and the fan-in latency validation of Fig. 11
// (fanin), and writes their results.
package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/qjump"
	"github.com/qjump-net/qjump/internal/sim/tcp"
	"github.com/qjump-net/qjump/internal/sim/topology"
)

// Scheme is a transport and switch design compared in Fig. 9.
type Scheme string

// The schemes of Fig. 9.
const (
	TCP     Scheme = "tcp"
	DCTCP   Scheme = "dctcp"
	PFabric Scheme = "pfabric"
	QJump   Scheme = "qjump"
)

// QJumpNS2 is not one of Fig. 9's schemes but QJump as the paper's own simulation limited it, to
// compare with ours (docs/reproducing.md): a limiter per flow that drops what its interval cannot
// hold (qjump.FlowPolicer), the authors' levels and budgets (NS2Level), strict-priority ports at
// the hosts as at the switches. Everything else is our qjump scheme's.
const QJumpNS2 Scheme = "qjump-ns2"

// Schemes lists them in the order the figures draw them.
var Schemes = []Scheme{TCP, DCTCP, PFabric, QJump}

// Variants are the schemes that sim fct runs beside Fig. 9's and sim run fig9 does not.
var Variants = []Scheme{QJumpNS2}

// allSchemes are Fig. 9's schemes and the variants.
func allSchemes() []Scheme { return append(Schemes[:len(Schemes):len(Schemes)], Variants...) }

// ParseScheme reads a scheme name.
func ParseScheme(s string) (Scheme, error) {
	for _, sc := range allSchemes() {
		if string(sc) == s {
			return sc, nil
		}
	}
	return "", fmt.Errorf("need one of tcp, dctcp, pfabric, qjump (Fig. 9's) or qjump-ns2 (QJump limited as the paper's ns-2 simulation did)")
}

// Parameters of the baselines, from the pFabric paper (Alizadeh et al., SIGCOMM 2013, §5.1–5.2)
// whose ns-2 scripts the QJump paper extended (§6.4):
//   - TCP and DCTCP: 225 kB of buffer per port (150 packets of 1500 B), minimum RTO 200 µs;
//   - DCTCP: marking threshold K = 65 packets (the QJump paper's [65, 65], §6.3), g = 1/16; a
//     buffer of K or fewer would never mark, and is refused (checkBuffer);
//   - pFabric: 36 kB per port (24 packets, 2×BDP), initial window 12 packets (one BDP of the
//     14.6 µs fabric), fixed RTO 45 µs (about 3 RTTs), SACK, and a window of at most 23
//     packets (the QJump authors' pFabric runs, run_pfabric.sh and qjump.tcl: maxcwnd_ is the
//     queue size less one, so with another buffer the buffer less one: PFabricMaxCwnd).
//
// The reference material here has no copy of the pFabric paper, so these values are as we read
// that paper; the pFabric-derived ns-2 parameter files in public repositories agree on what they
// set (K = 65, g = 1/16, 0.2 µs links, 9×16 hosts and 4 spines, a minimum RTO of 200–250 µs).
// Every TCP variant starts with the same 12-packet window, so that the schemes differ in what
// the literature says they differ in; the maximum RTO is ns-2's default of 64 s.
const (
	TCPBuffer     = 150
	DCTCPK        = 65
	DCTCPG        = 1.0 / 16
	PFabricBuffer = 24
	InitCwnd      = 12
	TCPMinRTO     = 200 * sim.Microsecond
	PFabricRTO    = 45 * sim.Microsecond
	MaxRTO        = 64 * sim.Second
)

// DefaultBuffer is the scheme's buffer per port in packets.
func (s Scheme) DefaultBuffer() int {
	if s == PFabric {
		return PFabricBuffer
	}
	return TCPBuffer
}

// transport is the scheme's TCP configuration on switch ports of buffer packets.
func (s Scheme) transport(buffer int) tcp.Config {
	if s == PFabric {
		return tcp.Config{InitCwnd: InitCwnd, MinRTO: PFabricRTO, MaxRTO: PFabricRTO, FixedRTO: true,
			SACK: true, MaxCwnd: PFabricMaxCwnd(buffer)}
	}
	if s == QJumpNS2 {
		return NS2Transport
	}
	return tcp.Config{InitCwnd: InitCwnd, MinRTO: TCPMinRTO, MaxRTO: MaxRTO, FastRetransmit: true}
}

// PFabricMaxCwnd is pFabric's window cap on switch ports of buffer packets: the buffer less one,
// as the pFabric scripts the QJump authors ran set it (maxcwnd_ = queue size − 1), so that one
// flow's window never fills a port on its own. It follows --buffer: kept at 23 over a larger
// buffer it would hold every flow below what the ports allow, and over a smaller one let one
// flow overflow a port. A buffer of 1 has no window to give (checkBuffer refuses it).
func PFabricMaxCwnd(buffer int) int32 { return int32(buffer - 1) }

// NS2Transport is the TCP of the authors' ns-2 QJump runs (github.com/camsas/qjump-ns2,
// qjump.tcl and run_qjump.sh): a SACK agent that keeps its scoreboard over timeouts
// (Agent/TCP/FullTcp/Sack, clear_on_timeout_ false), no retransmission on duplicate ACKs
// (dynamic_dupack_ 1000000 makes the threshold a million windows), the window capped at the
// queue size less one (maxcwnd_, 153 − 1), a 12-packet initial window and a 200 µs minimum RTO.
var NS2Transport = tcp.Config{InitCwnd: InitCwnd, MinRTO: TCPMinRTO, MaxRTO: MaxRTO, SACK: true, MaxCwnd: 152}

// control is a new congestion control for one flow.
func (s Scheme) control() tcp.Control {
	switch s {
	case DCTCP:
		return tcp.NewDCTCP(DCTCPG)
	case PFabric:
		return tcp.PFabric{}
	}
	return tcp.Reno{}
}

// ports returns the scheme's port maker. QJump's hosts get a limiter each, with the epoch phase
// of each host drawn from phases (hosts' clocks are not aligned).
func (s Scheme) ports(el *sim.EventList, pool *sim.PacketPool, qj model.Config, phases *rand.Rand) topology.PortMaker {
	return func(rate sim.Rate, limit int, host int) sim.Port {
		isHost := host >= 0
		switch s {
		case DCTCP:
			return sim.NewQueue(el, pool, rate, limit, DCTCPK, isHost)
		case PFabric:
			return sim.NewPFabricQueue(el, pool, rate, limit, isHost)
		case QJump:
			if isHost {
				lim := qjump.NewLimiter(qj)
				return qjump.NewHostPort(el, pool, rate, limit, lim, phases.Int64N(lim.EpochNs()))
			}
			return sim.NewPrioQueue(el, pool, rate, limit, false)
		case QJumpNS2:
			return sim.NewPrioQueue(el, pool, rate, limit, isHost)
		}
		return sim.NewQueue(el, pool, rate, limit, 0, isHost)
	}
}

// paperFactors are §6.4's f0..f7, which the paper chose for n = 144 hosts at P = 9 kB.
var paperFactors = [model.NumLevels]float64{144, 100, 20, 10, 5, 3, 2, 1}

// PaperPacket is §6.4's P: 9 kB, six 1500-byte packets on the wire.
const PaperPacket model.Bytes = 9000

// PaperQJump is Fig. 9's QJump configuration (§6.4) for a fabric of n = hosts at edge rate R:
// P = 9 kB, m = 1 and the paper's factors, which it chose for n = 144: {144, 100, 20, 10, 5, 3,
// 2, 1}. m = 1: the authors' ns-2 scripts compute the epoch as n·P/R, which makes f = n exactly
// line rate; with the slides' m = 2 level 0 would be held to half of it. ε = 0: the simulated
// switches add no processing delay.
//
// A level's rate is f·P per epoch n·P/R, f/n of the line, so the paper's numbers mean what it
// meant only at n = 144. On another fabric the factors follow what each one was chosen for:
//   - f0 = n: level 0 carries the large flows at line rate ("does not apply any rate-limiting
//     (scheduling) to them", §6.4); kept at 144, it would get 144/n of the line (a quarter at
//     576 hosts) and slow every large flow that much;
//   - f7 = 1: the guaranteed level, one P per host per epoch, whose fan-in bound holds at any n;
//   - f1..f6 as the paper's, each capped at n: their budgets f·P (900, 180, 90, 45, 27, 18 kB) are
//     the web-search CDF's size steps (LevelForSize), a property of the workload, not of the
//     fabric. Above n a factor allows more than line rate, which the link caps anyway
//     (model.Config.Warnings says so); capped, the factor states the rate the level gets.
//
// At n = 144 this is exactly the paper's configuration.
func PaperQJump(hosts int, rate sim.Rate) model.Config {
	n := float64(hosts)
	factors := model.Factors{}
	for l, f := range paperFactors {
		factors[model.Level(l)] = model.Limited(min(f, n))
	}
	factors[0] = model.Limited(n)
	return model.Config{Hosts: hosts, Rate: model.Rate(rate), Packet: PaperPacket, Mesochronous: 1, Factors: factors}
}

// LevelForSize puts a flow on the highest level whose budget in the paper's configuration
// (f·P with §6.4's factors) holds the whole flow (wire bytes, headers included), else on level
// 0. The paper's factors line up with the web-search CDF's steps: 6 packets (9 kB) fit f7 = 1,
// flows up to 18, 27, 45, 90 and 180 kB fit levels 6 to 2, up to 900 kB level 1, and everything
// larger goes to level 0 (line rate). A flow then never waits for a second epoch of its own
// level: its budget holds it, or, where PaperQJump caps the level's factor at n (fewer than 100
// hosts), the level runs at line rate as level 0 does: its budget n·P is what the link carries
// in an epoch. The sizes are the workload's, so they are the same on every fabric: with the
// capped budgets instead, levels 1 to 3 would all be n·P on a fabric of 8 hosts, and flows of
// 72 to 900 kB would share level 0 with the largest.
func LevelForSize(size int64) uint8 {
	wire := size + int64(tcp.PacketsFor(size))*tcp.Header
	for l := model.TopLevel; l > 0; l-- {
		if paperFactors[l]*float64(PaperPacket) >= float64(wire) {
			return uint8(l)
		}
	}
	return 0
}

// NS2AckLevel is the level of every ACK in the authors' ns-2 QJump runs. Their ACKs pass no
// limiter and carry no priority of their own: pfabric.patch sets a packet's priority in
// FullTcpAgent::sendpacket only when it carries data, so an ACK keeps what ns-2's
// Agent::initpkt gave it, the agent's prio_, 0 by default; and priority 0 is what the QJUMP
// connector gives level 7 (tcp-common-opt.tcl: activate-fid's last argument, 0 for level 7 up
// to 7 for level 0; the ports serve the lowest first, deque_prio_).
const NS2AckLevel = 7

// NS2Interval is the authors' ns-2 limiter's interval (tcp-common-opt.tcl: activate-fid's 1050000
// ns), close to our n·P/R = 1.037 ms.
const NS2Interval = 1050 * sim.Microsecond

// ns2Levels are the authors' ns-2 levels (github.com/camsas/qjump-ns2, tcp-common-opt.tcl,
// TCP_pair start): a flow of up to maxBytes of payload goes to level, whose limiter allows the
// flow budgetBits per NS2Interval. Each budget is its size limit in wire bytes (1500 per 1460 of
// payload), so a flow's whole first transmission fits; they are not f·P with §6.4's factors (the
// level 6 budget is 19.5 kB where f6 · P is 18 kB, level 0's 1.31 MB where it is 1.30 MB).
var ns2Levels = []struct {
	maxBytes   int64
	level      uint8
	budgetBits int64
}{
	{8_760, 7, 72_000}, {18_980, 6, 156_000}, {27_740, 5, 228_000}, {48_180, 4, 396_000},
	{77_380, 3, 636_000}, {194_180, 2, 1_596_000}, {973_820, 1, 8_004_000}, {math.MaxInt64, 0, 10_500_000},
}

// NS2Level is the level and the budget per NS2Interval, in bits, of a flow of size bytes in the
// authors' ns-2 scripts.
func NS2Level(size int64) (level uint8, budgetBits int64) {
	for _, l := range ns2Levels {
		if size <= l.maxBytes {
			return l.level, l.budgetBits
		}
	}
	panic("unreachable: the last level takes every size")
}
