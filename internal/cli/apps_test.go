package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Bad input to the application verbs is refused before anything starts: one line naming the
// flag, exit status 2.
func TestAppUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"2pc", "coordinator", "--servers", "127.0.0.1:1"}, "transport"},
		{[]string{"2pc", "coordinator", "--transport", "sctp", "--servers", "127.0.0.1:1"}, "--transport"},
		{[]string{"2pc", "coordinator", "--transport", "tcp", "--servers", "nohost"}, "--servers"},
		{[]string{"2pc", "coordinator", "--transport", "tcp", "--servers", "h:1", "--count", "0"}, "--count"},
		{[]string{"2pc", "coordinator", "--transport", "tcp", "--servers", "h:1", "--for", "0s"}, "--for"},
		{[]string{"2pc", "coordinator", "--transport", "udp", "--servers", "h:1", "--retries", "-1"}, "--retries"},
		{[]string{"2pc", "coordinator", "--transport", "qjump", "--servers", "h:1"}, "--epoch"},
		{[]string{"2pc", "coordinator", "--transport", "qjump", "--servers", "h:1", "--epoch", "1ms", "--detect-epochs", "0"}, "--detect-epochs"},
		{[]string{"2pc", "coordinator", "--transport", "udp", "--servers", "h:1", "--broadcast", "h:2"}, "--broadcast"},
		{[]string{"2pc", "coordinator", "--transport", "tcp", "--servers", "h:1", "--size", "70000"}, "--size"},
		{[]string{"2pc", "server", "--transport", "x"}, "--transport"},
		{[]string{"2pc", "server", "--transport", "tcp", "--for", "0s"}, "--for"},
		{[]string{"2pc", "server", "--transport", "tcp", "--vote-no-every", "-2"}, "--vote-no-every"},
		{[]string{"barrier", "--id", "0"}, "peers"},
		{[]string{"barrier", "--peers", "h:1"}, "--peers"},
		{[]string{"barrier", "--peers", "h:1,h:2", "--id", "2"}, "--id"},
		{[]string{"barrier", "--peers", "h:1,h:2", "--rounds", "0"}, "--rounds"},
		{[]string{"barrier", "--peers", "h:1,h:2", "--for", "-1s"}, "--for"},
		{[]string{"barrier", "--peers", "h:1,h:2", "--size", "2"}, "--size"},
		{[]string{"barrier", "--peers", "h:1,h:2", "--timeout", "0s"}, "--timeout"},
		{[]string{"ptp"}, "role"},
		{[]string{"ptp", "--role", "boundary"}, "--role"},
		{[]string{"ptp", "--role", "slave", "--iface", ""}, "--iface"},
		{[]string{"ptp", "--role", "slave", "--for", "0s"}, "--for"},
		{[]string{"ptp", "--role", "slave", "--iface", "qjnosuch0"}, "--iface"},
		{[]string{"ptp", "--role", "slave", "--limit", "0"}, "--limit"},
		{[]string{"ptp", "--role", "slave", "--sync-interval", "-9"}, "--sync-interval"},
		{[]string{"ptp", "--role", "slave", "--delay-req-interval", "9"}, "--delay-req-interval"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(c.args, &stdout, &stderr)
		msg := stderr.String()
		if code != exitUsage || !strings.Contains(msg, c.says) || strings.Count(msg, "\n") != 1 {
			t.Errorf("qjump %s: exit %d, stderr %q; want 2 and one line about %s", strings.Join(c.args, " "), code, msg, c.says)
		}
	}
}

func TestTwoPCCoordinatorOptions(t *testing.T) {
	got := parseOptions(t, newTwoPCCoordinatorCommand, "--transport", "tcp", "--servers", "h:1,h:2")
	if got.transport != "tcp" || strings.Join(got.Servers, " ") != "h:1 h:2" || got.Count != 10_000 ||
		got.For != time.Minute || got.Size != 64 || got.Retries != 5 || got.DetectEpochs != 2 || got.Timeout != 0 {
		t.Errorf("defaults parsed as %+v", got)
	}
	got = parseOptions(t, newTwoPCCoordinatorCommand, "--transport", "qjump", "--servers", "h:1", "--broadcast", "b:1",
		"--count", "9", "--for", "2s", "--size", "8", "--timeout", "3ms", "--retries", "1", "--epoch", "40us",
		"--detect-epochs", "3", "--connect", "1s", "--summary", "s.json", "--out", "t.csv")
	if got.Broadcast != "b:1" || got.Count != 9 || got.For != 2*time.Second || got.Size != 8 || got.Timeout != 3*time.Millisecond ||
		got.Retries != 1 || got.Epoch != 40*time.Microsecond || got.DetectEpochs != 3 || got.Connect != time.Second ||
		got.summary != "s.json" || got.out != "t.csv" {
		t.Errorf("parsed %+v", got)
	}
}

func TestTwoPCServerOptions(t *testing.T) {
	got := parseOptions(t, newTwoPCServerCommand, "--transport", "udp")
	if got.transport != "udp" || got.Listen != ":7000" || got.For != 10*time.Minute || got.Timeout != twopcUDPTimeout || got.Retries != 5 {
		t.Errorf("defaults parsed as %+v", got)
	}
	got = parseOptions(t, newTwoPCServerCommand, "--transport", "qjump", "--listen", ":9", "--for", "1s",
		"--vote-no-every", "4", "--out", "o.json", "--ready", "r")
	if got.Listen != ":9" || got.For != time.Second || got.VoteNoEvery != 4 || got.out != "o.json" || got.ready != "r" {
		t.Errorf("parsed %+v", got)
	}
}

func TestBarrierOptions(t *testing.T) {
	got := parseOptions(t, newBarrierCommand, "--peers", "h:1,h:2")
	if strings.Join(got.Peers, " ") != "h:1 h:2" || got.ID != 0 || got.Rounds != 10_000 || got.For != time.Minute ||
		got.Size != 64 || got.Timeout != time.Second || got.Connect != 10*time.Second || got.Interval != 0 {
		t.Errorf("defaults parsed as %+v", got)
	}
	got = parseOptions(t, newBarrierCommand, "--peers", "h:1,h:2,h:3", "--id", "2", "--listen", ":5", "--rounds", "7",
		"--for", "3s", "--size", "32", "--interval", "1ms", "--timeout", "2s", "--connect", "4s", "--out", "b.csv", "--ready", "r")
	if got.ID != 2 || got.Listen != ":5" || got.Rounds != 7 || got.For != 3*time.Second || got.Size != 32 ||
		got.Interval != time.Millisecond || got.Timeout != 2*time.Second || got.Connect != 4*time.Second ||
		got.out != "b.csv" || got.ready != "r" {
		t.Errorf("parsed %+v", got)
	}
}

func TestPTPOptions(t *testing.T) {
	got := parseOptions(t, newPTPCommand, "--role", "slave")
	if got.role != "slave" || got.Interface != "eth0" || got.For != time.Minute || got.Limit != 100_000 ||
		got.SyncInterval != -4 || got.DelayReqInterval != -4 {
		t.Errorf("defaults parsed as %+v", got)
	}
	got = parseOptions(t, newPTPCommand, "--role", "master", "--iface", "veth1", "--for", "5s", "--limit", "10",
		"--sync-interval", "-6", "--delay-req-interval", "-5", "--out", "p.csv", "--log", "p.log", "--ready", "r")
	if got.role != "master" || got.Interface != "veth1" || got.For != 5*time.Second || got.Limit != 10 ||
		got.SyncInterval != -6 || got.DelayReqInterval != -5 || got.out != "p.csv" || got.log != "p.log" || got.ready != "r" {
		t.Errorf("parsed %+v", got)
	}
}
