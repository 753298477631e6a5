package cli

import (
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/probe"
)

func TestProbeServerOptions(t *testing.T) {
	got := parseOptions(t, newProbeServerCommand)
	if got.Listen != ":9000" || got.For != 0 || got.out != "" || got.Limit == 0 {
		t.Errorf("defaults parsed as %+v", got)
	}
	got = parseOptions(t, newProbeServerCommand, "--listen", "127.0.0.1:9100", "--for", "2s", "--tos", "184",
		"--out", "a.csv", "--ready", "r")
	if got.Listen != "127.0.0.1:9100" || got.For != 2*time.Second || got.TOS != 184 || got.out != "a.csv" || got.ready != "r" {
		t.Errorf("parsed %+v", got)
	}
}

func TestProbeClientOptions(t *testing.T) {
	got := parseOptions(t, newProbeClientCommand, "--to", "198.18.0.2:9000")
	if got.To != "198.18.0.2:9000" || got.mode != string(probe.RequestResponse) || got.Count != 1000 ||
		got.Interval != time.Millisecond || got.Size != 64 || got.Timeout != time.Second {
		t.Errorf("defaults parsed as %+v", got)
	}
	got = parseOptions(t, newProbeClientCommand, "--to", "h:1", "--mode", "oneway", "--count", "5", "--interval", "3ms",
		"--size", "100", "--timeout", "2s", "--tos", "32", "--sender", "7", "--out", "s.csv")
	if got.mode != "oneway" || got.Count != 5 || got.Interval != 3*time.Millisecond || got.Size != 100 ||
		got.Timeout != 2*time.Second || got.TOS != 32 || got.sender != 7 || got.out != "s.csv" {
		t.Errorf("parsed %+v", got)
	}
}

func TestProbeMemcachedOptions(t *testing.T) {
	got := parseOptions(t, newProbeMemcachedCommand, "--server", "198.18.0.2:11211")
	if got.Server != "198.18.0.2:11211" || got.Count != 2000 || got.Value != 1024 || got.GetRatio != 0.9 ||
		got.Keys != 1000 || got.Seed != 1 || !got.Populate {
		t.Errorf("defaults parsed as %+v", got)
	}
	got = parseOptions(t, newProbeMemcachedCommand, "--server", "h:1", "--count", "9", "--interval", "2ms", "--value", "64",
		"--get-ratio", "0.5", "--keys", "10", "--seed", "3", "--for", "1s", "--populate=false", "--out", "k.csv")
	if got.Count != 9 || got.Interval != 2*time.Millisecond || got.Value != 64 || got.GetRatio != 0.5 || got.Keys != 10 ||
		got.Seed != 3 || got.For != time.Second || got.Populate || got.out != "k.csv" {
		t.Errorf("parsed %+v", got)
	}
}
