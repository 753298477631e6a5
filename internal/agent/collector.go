package agent

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

// levelCounter is one per-level counter of the dataplane as a Prometheus counter.
type levelCounter struct {
	desc  *prometheus.Desc
	value func(dataplane.Counters) uint64
}

// dropReason is one reason the dataplane drops a packet for, with its packet and byte counts
// (wire bytes). A new reason in dataplane.Counters is one more entry here; the metric names and
// the dashboards that sum over `reason` stay as they are.
type dropReason struct {
	reason  string
	packets func(dataplane.Counters) uint64
	bytes   func(dataplane.Counters) uint64
}

var dropReasons = []dropReason{
	{"over_budget", func(c dataplane.Counters) uint64 { return c.DroppedPackets },
		func(c dataplane.Counters) uint64 { return c.DroppedBytes }},
	{"larger_than_budget", func(c dataplane.Counters) uint64 { return c.OversizePackets },
		func(c dataplane.Counters) uint64 { return c.OversizeBytes }},
	{"contended", func(c dataplane.Counters) uint64 { return c.ContendedPackets },
		func(c dataplane.Counters) uint64 { return c.ContendedBytes }},
	{"no_level_under_ceiling", func(c dataplane.Counters) uint64 { return c.NoLevelPackets },
		func(c dataplane.Counters) uint64 { return c.NoLevelBytes }},
}

var (
	ifaceLevel  = []string{"interface", "level"}
	ifaceReason = []string{"interface", "level", "reason"}

	levelCounters = []levelCounter{
		counter("sent_packets_total", "Packets sent at the level (after any demotion).", func(c dataplane.Counters) uint64 { return c.SentPackets }),
		counter("sent_bytes_total", "Wire bytes sent at the level (what its budget is charged).", func(c dataplane.Counters) uint64 { return c.SentBytes }),
		counter("demoted_packets_total", "Packets over the level's budget sent on a lower level (police mode, autoclass).", func(c dataplane.Counters) uint64 { return c.DemotedPackets }),
		counter("demoted_bytes_total", "Bytes over the level's budget sent on a lower level.", func(c dataplane.Counters) uint64 { return c.DemotedBytes }),
		counter("shaped_packets_total", "Times the level's shaper held a packet back (shape mode; the shaper qdisc's overlimits).", func(c dataplane.Counters) uint64 { return c.ShapedPackets }),
		counter("shaped_bytes_total", "Bytes held back by the level's shaper, where the shaper counts them.", func(c dataplane.Counters) uint64 { return c.ShapedBytes }),
		counter("malformed_packets_total", "Packets with headers the dataplane could not parse, never marked.", func(c dataplane.Counters) uint64 { return c.MalformedPackets }),
		counter("not_ip_packets_total", "Packets that are not IP (ARP, LLDP, LACP, STP), never marked.", func(c dataplane.Counters) uint64 { return c.NotIPPackets }),
		counter("unconfigured_packets_total", "Packets passed untouched because the program had no configuration (level 0).", func(c dataplane.Counters) uint64 { return c.UnconfiguredPackets }),
	}
	droppedPackets = prometheus.NewDesc("qjump_dropped_packets_total", "Packets dropped at the level, by reason.", ifaceReason, nil)
	droppedBytes   = prometheus.NewDesc("qjump_dropped_bytes_total", "Bytes dropped at the level, by reason.", ifaceReason, nil)

	attachedDesc   = prometheus.NewDesc("qjump_attached", "1 while QJump's program is attached to the interface's egress.", []string{"interface"}, nil)
	treeDesc       = prometheus.NewDesc("qjump_egress_tree", "1 while QJump's egress tree (strict priority by level under a root at R) is on the interface as up built it; 0 when it was deleted or replaced by hand.", []string{"interface"}, nil)
	generationDesc = prometheus.NewDesc("qjump_config_generation", "Configuration generation of the interface: 1 after up, +1 per reload.", []string{"interface"}, nil)
	infoDesc       = prometheus.NewDesc("qjump_config_info", "The configuration the interface runs: its hash (equal on every host of one cluster config), mode, and the build of its eBPF program (unknown: loaded by a version that recorded none).", []string{"interface", "hash", "mode", "program"}, nil)
	epochDesc      = prometheus.NewDesc("qjump_epoch_seconds", "Network epoch E = m·n·P·8/R + ε.", []string{"interface"}, nil)
	budgetDesc     = prometheus.NewDesc("qjump_level_budget_bytes", "Bytes the level may send per epoch, f·P (limited levels only).", ifaceLevel, nil)
	rateDesc       = prometheus.NewDesc("qjump_level_rate_bytes_per_second", "Rate the level may send at in bytes/s, f·P/E capped at the link's R/8; R/8 for an unlimited level.", ifaceLevel, nil)
	fanInDesc      = prometheus.NewDesc("qjump_level_fan_in_delay_seconds", "The level's latency bound under full fan-in in the mode that runs (calc's worst-case fan-in delay); only for levels that have one.", ifaceLevel, nil)
	readDesc       = prometheus.NewDesc("qjump_dataplane_read_success", "1 if this scrape read the dataplane's state, 0 if it failed (see the agent's log).", nil, nil)
)

func counter(name, help string, value func(dataplane.Counters) uint64) levelCounter {
	return levelCounter{prometheus.NewDesc("qjump_"+name, help, ifaceLevel, nil), value}
}

// dataplaneCollector reads the dataplane's per-CPU counters at scrape time: what Prometheus gets
// is what the kernel counted at that moment, never a copy the agent polled earlier.
type dataplaneCollector struct {
	list func() ([]dataplane.Status, error) // dataplane.List; tests give their own
	log  func(error)
}

func (c dataplaneCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, lc := range levelCounters {
		ch <- lc.desc
	}
	for _, d := range []*prometheus.Desc{droppedPackets, droppedBytes, attachedDesc, treeDesc, generationDesc, infoDesc,
		epochDesc, budgetDesc, rateDesc, fanInDesc, readDesc} {
		ch <- d
	}
}

func (c dataplaneCollector) Collect(ch chan<- prometheus.Metric) {
	all, err := c.list()
	ok := 1.0
	if err != nil {
		c.log(err)
		ok = 0
	}
	ch <- prometheus.MustNewConstMetric(readDesc, prometheus.GaugeValue, ok)
	for _, st := range all {
		collectDevice(ch, st)
	}
}

func collectDevice(ch chan<- prometheus.Metric, st dataplane.Status) {
	dev, d := st.Device, st.Config
	gauge := func(desc *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, labels...)
	}
	attached := 0.0
	if st.Attached {
		attached = 1
	}
	gauge(attachedDesc, attached, dev)
	tree := 1.0
	if !st.TreeOn() {
		tree = 0
	}
	gauge(treeDesc, tree, dev)
	gauge(generationDesc, float64(st.Generation), dev)
	program := st.Program
	if program == "" {
		program = "unknown"
	}
	gauge(infoDesc, 1, dev, config.Hash(d), string(d.Mode), program)
	gauge(epochDesc, d.Model.Epoch().Seconds(), dev)
	bounds := d.ModelOfMode()
	for l := range model.NumLevels {
		level := strconv.Itoa(l)
		c := st.Levels[l]
		for _, lc := range levelCounters {
			ch <- prometheus.MustNewConstMetric(lc.desc, prometheus.CounterValue, float64(lc.value(c)), dev, level)
		}
		for _, r := range dropReasons {
			ch <- prometheus.MustNewConstMetric(droppedPackets, prometheus.CounterValue, float64(r.packets(c)), dev, level, r.reason)
			ch <- prometheus.MustNewConstMetric(droppedBytes, prometheus.CounterValue, float64(r.bytes(c)), dev, level, r.reason)
		}
		f, configured := d.Model.Factors[model.Level(l)]
		if !configured {
			continue // carries no traffic of its own: no budget, no rate
		}
		if b, limited := d.Model.Budget(f); limited {
			gauge(budgetDesc, float64(b), dev, level)
		}
		gauge(rateDesc, float64(d.Model.LevelRate(f))/8, dev, level)
		if fi := bounds.FanIn(model.Level(l)); fi.Guaranteed {
			gauge(fanInDesc, fi.Delay.Seconds(), dev, level)
		}
	}
}
