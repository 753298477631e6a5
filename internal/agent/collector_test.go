package agent

import (
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

func testStatus(t *testing.T) dataplane.Status {
	t.Helper()
	d := config.Default()
	d.Model.Hosts, d.Model.Rate = 2, 100e6
	d, err := d.Solved()
	if err != nil {
		t.Fatal(err)
	}
	st := dataplane.Status{Device: "eth0", Attached: true, Generation: 3, Config: d}
	st.Levels[7] = dataplane.Counters{SentPackets: 10, SentBytes: 15000, DroppedPackets: 4, DroppedBytes: 6000}
	return st
}

// TestCollectorReadsAtScrape: every scrape calls the dataplane, and the values are its counters.
func TestCollectorReadsAtScrape(t *testing.T) {
	st := testStatus(t)
	calls := 0
	c := dataplaneCollector{list: func() ([]dataplane.Status, error) { calls++; return []dataplane.Status{st}, nil }, log: func(error) {}}
	want := `
# HELP qjump_sent_bytes_total Wire bytes sent at the level (what its budget is charged).
# TYPE qjump_sent_bytes_total counter
qjump_sent_bytes_total{interface="eth0",level="0"} 0
qjump_sent_bytes_total{interface="eth0",level="1"} 0
qjump_sent_bytes_total{interface="eth0",level="2"} 0
qjump_sent_bytes_total{interface="eth0",level="3"} 0
qjump_sent_bytes_total{interface="eth0",level="4"} 0
qjump_sent_bytes_total{interface="eth0",level="5"} 0
qjump_sent_bytes_total{interface="eth0",level="6"} 0
qjump_sent_bytes_total{interface="eth0",level="7"} 15000
# HELP qjump_level_budget_bytes Bytes the level may send per epoch, f·P (limited levels only).
# TYPE qjump_level_budget_bytes gauge
qjump_level_budget_bytes{interface="eth0",level="7"} 1538
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "qjump_sent_bytes_total", "qjump_level_budget_bytes"); err != nil {
		t.Error(err)
	}
	// The build of the program the interface runs, which an upgrade changes once the agent reloads
	// it; unknown for one loaded by a version that recorded none.
	for _, program := range []string{"0123456789ab", ""} {
		st.Program = program
		label := program
		if label == "" {
			label = "unknown"
		}
		if got := testutil.ToFloat64(onlyMetric(c, `qjump_config_info`, `program="`+label+`"`)); got != 1 {
			t.Errorf("program %q: qjump_config_info{program=%q} = %v, want 1", program, label, got)
		}
	}
	st.Program = ""
	st.Levels[7].SentBytes = 30000
	if got := testutil.ToFloat64(onlyMetric(c, `qjump_sent_bytes_total`, `level="7"`)); got != 30000 {
		t.Errorf("second scrape: %v bytes, want the dataplane's 30000 read at that scrape", got)
	}
	if calls < 2 {
		t.Errorf("dataplane read %d times for two scrapes", calls)
	}
	if got := testutil.ToFloat64(onlyMetric(c, `qjump_dropped_bytes_total`, `level="7",reason="over_budget"`)); got != 6000 {
		t.Errorf("dropped bytes %v, want 6000 under reason over_budget", got)
	}
	if got := testutil.ToFloat64(onlyMetric(c, `qjump_epoch_seconds`, ``)); got != st.Config.Model.Epoch().Seconds() {
		t.Errorf("epoch %v s, want %v", got, st.Config.Model.Epoch().Seconds())
	}
	if n, err := testutil.GatherAndLint(registryWith(c)); err != nil || len(n) > 0 {
		t.Errorf("metric names break Prometheus conventions: %v %v", n, err)
	}
}

// TestCollectorExportsTheBound: the guaranteed level's fan-in bound, for testStatus's n = 2 hosts
// at 100 Mb/s with one full frame (1538 B) as P: n·b·P·8/R = 2·2·1538·8/1e8 s in police mode
// (b = 2), half of it in shape mode (b = m−1 = 1); the unlimited level 0 has none.
func TestCollectorExportsTheBound(t *testing.T) {
	for _, tc := range []struct {
		mode config.Mode
		want string
	}{{config.Police, "0.00049216"}, {config.Shape, "0.00024608"}} {
		st := testStatus(t)
		st.Config.Mode = tc.mode
		c := dataplaneCollector{list: func() ([]dataplane.Status, error) { return []dataplane.Status{st}, nil }, log: func(error) {}}
		want := `
# HELP qjump_level_fan_in_delay_seconds The level's latency bound under full fan-in in the mode that runs (calc's worst-case fan-in delay); only for levels that have one.
# TYPE qjump_level_fan_in_delay_seconds gauge
qjump_level_fan_in_delay_seconds{interface="eth0",level="7"} ` + tc.want + "\n"
		if err := testutil.CollectAndCompare(c, strings.NewReader(want), "qjump_level_fan_in_delay_seconds"); err != nil {
			t.Errorf("%s mode: %v", tc.mode, err)
		}
	}
}

// TestEveryDropReasonIsExported: each reason in the table is a label value of the two metrics,
// so a reason added with issue 8's counters appears without any other change.
func TestEveryDropReasonIsExported(t *testing.T) {
	st := testStatus(t)
	c := dataplaneCollector{list: func() ([]dataplane.Status, error) { return []dataplane.Status{st}, nil }, log: func(error) {}}
	n := testutil.CollectAndCount(c, "qjump_dropped_packets_total")
	if n != model.NumLevels*len(dropReasons) {
		t.Errorf("%d dropped-packet series, want %d levels × %d reasons", n, model.NumLevels, len(dropReasons))
	}
}

func TestCollectorReportsReadFailure(t *testing.T) {
	var logged error
	c := dataplaneCollector{list: func() ([]dataplane.Status, error) { return nil, errors.New("no bpffs") }, log: func(err error) { logged = err }}
	if got := testutil.ToFloat64(onlyMetric(c, "qjump_dataplane_read_success", "")); got != 0 || logged == nil {
		t.Errorf("read_success %v, logged %v; want 0 and the error logged", got, logged)
	}
}

func registryWith(c prometheus.Collector) *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(c)
	return r
}

// onlyMetric is the one series of c named name whose labels contain match.
func onlyMetric(c prometheus.Collector, name, match string) prometheus.Collector {
	return filtered{c, name, match}
}

type filtered struct {
	c           prometheus.Collector
	name, match string
}

func (f filtered) Describe(ch chan<- *prometheus.Desc) { f.c.Describe(ch) }
func (f filtered) Collect(ch chan<- prometheus.Metric) {
	all := make(chan prometheus.Metric, 1024)
	f.c.Collect(all)
	close(all)
	for m := range all {
		d := m.Desc().String()
		if strings.Contains(d, `"`+f.name+`"`) && strings.Contains(labelsOf(m), f.match) {
			ch <- m
		}
	}
}

func labelsOf(m prometheus.Metric) string {
	pb := new(dto.Metric)
	_ = m.Write(pb)
	var b strings.Builder
	for _, l := range pb.Label {
		b.WriteString(l.GetName() + `="` + l.GetValue() + `",`)
	}
	return b.String()
}
