package ptp

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Lines captured from ptp4l 3.1.1 (Debian) running as the slave the way Run configures it.
const captured = `ptp4l[1305.930]: port 1: INITIALIZING to LISTENING on INIT_COMPLETE
ptp4l[1305.930]: port 0: INITIALIZING to LISTENING on INIT_COMPLETE
ptp4l[1306.758]: selected local clock c69e03.fffe.85d4cd as best master
ptp4l[1306.827]: port 1: new foreign master 8e56cb.fffe.38d8d1-1
ptp4l[1307.327]: selected best master clock 8e56cb.fffe.38d8d1
ptp4l[1307.327]: foreign master not using PTP timescale
ptp4l[1307.327]: port 1: LISTENING to UNCALIBRATED on RS_SLAVE
ptp4l[1307.458]: master offset       -381 s0 freq      +0 path delay      3295
ptp4l[1307.521]: master offset      -2105 s0 freq      +0 path delay      2916
ptp4l[1307.583]: master offset 1051 s2 freq -12 path delay 2864
ptp4l[1311.916]: master offset         66 s0 freq      +0 path delay      2709
ptp4l[1311.950]: rms  123 max  456 freq     +0 +/-   0 delay  2700 +/-  10
`

func TestParseLine(t *testing.T) {
	var got []Sample
	for _, line := range strings.Split(captured, "\n") {
		if s, ok := ParseLine(line); ok {
			got = append(got, s)
		}
	}
	want := []Sample{
		{PTP4lS: 1307.458, OffsetNS: -381, PathDelayNS: 3295},
		{PTP4lS: 1307.521, OffsetNS: -2105, PathDelayNS: 2916},
		{PTP4lS: 1307.583, OffsetNS: 1051, State: 2, FreqPPB: -12, PathDelayNS: 2864},
		{PTP4lS: 1311.916, OffsetNS: 66, PathDelayNS: 2709},
	}
	if len(got) != len(want) {
		t.Fatalf("parsed %d samples, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sample %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestCollectStopsAtLimitAndSaysReady(t *testing.T) {
	ready, stopped := 0, 0
	o := Options{Role: Slave, Limit: 2, Ready: func() { ready++ }}
	var log bytes.Buffer
	samples, tail := collect(strings.NewReader(captured), o, func() { stopped++ }, &log)
	if len(samples) != 2 || ready != 1 || stopped != 1 || samples[0].TimeNS == 0 {
		t.Errorf("%d samples, ready %d times, stopped %d times; want 2, 1, 1", len(samples), ready, stopped)
	}
	if len(tail) != 5 || log.String() != captured {
		t.Errorf("tail %q; log differs from the input: %v", tail, log.String() != captured)
	}
	ready = 0
	o = Options{Role: Master, Limit: 10, Ready: func() { ready++ }}
	master := "ptp4l[1024.103]: port 1: LISTENING to MASTER on ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES\nptp4l[1024.103]: port 1: assuming the grand master role\n"
	if samples, _ := collect(strings.NewReader(master), o, func() {}, nil); len(samples) != 0 || ready != 1 {
		t.Errorf("master: %d samples, ready %d times; want none and once", len(samples), ready)
	}
}

func TestConfig(t *testing.T) {
	o := Options{Role: Slave, Interface: "eth0", For: time.Second, Limit: 1, SyncInterval: -5, DelayReqInterval: -3}
	c := Config(o, "/tmp/x.sock", false)
	for _, want := range []string{"time_stamping            software", "network_transport        UDPv4",
		"logSyncInterval          -5", "logMinDelayReqInterval   -3", "summary_interval         -5",
		"clock_servo              ntpshm", "slaveOnly                1", "uds_address              /tmp/x.sock"} {
		if !strings.Contains(c, want+"\n") {
			t.Errorf("config lacks %q:\n%s", want, c)
		}
	}
	if strings.Contains(c, "uds_ro_address") {
		t.Errorf("linuxptp 3 refuses uds_ro_address:\n%s", c)
	}
	if c := Config(o, "/s", true); !strings.Contains(c, "uds_ro_address           /s.ro\n") {
		t.Errorf("linuxptp 4 config lacks its read-only socket:\n%s", c)
	}
	o.Role = Master
	if c := Config(o, "/s", false); strings.Contains(c, "slaveOnly") || !strings.Contains(c, "priority1") {
		t.Errorf("master config:\n%s", c)
	}
}

func TestOptionsNameTheField(t *testing.T) {
	ok := Options{Role: Slave, Interface: "eth0", For: time.Second, Limit: 1, SyncInterval: -4, DelayReqInterval: -4}
	cases := map[string]func(o *Options){
		"role":               func(o *Options) { o.Role = "boundary" },
		"iface":              func(o *Options) { o.Interface = "" },
		"for":                func(o *Options) { o.For = 0 },
		"limit":              func(o *Options) { o.Limit = 0 },
		"sync-interval":      func(o *Options) { o.SyncInterval = -8 },
		"delay-req-interval": func(o *Options) { o.DelayReqInterval = 5 },
	}
	for name, bad := range cases {
		o := ok
		bad(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "invalid "+name+" ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := ok.Validate(); err != nil {
		t.Error(err)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	in := []Sample{{TimeNS: 1, PTP4lS: 2.5, OffsetNS: -3, PathDelayNS: 4, State: 0, FreqPPB: 5}, {TimeNS: 6, OffsetNS: 7}}
	var b bytes.Buffer
	if err := WriteCSV(&b, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadCSV(&b)
	if err != nil || len(out) != 2 || out[0] != in[0] || out[1] != in[1] {
		t.Fatalf("read back %+v, %v; want %+v", out, err, in)
	}
}
