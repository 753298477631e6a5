package cli

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/testbed/experiment"
)

// Bad input to advise, and to testbed run's new experiments, is refused before a testbed is
// built: one line naming the flag, exit status 2.
func TestAdviseUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		// no target: said so, not as a --p99 "" that was never typed
		{[]string{"advise"}, "advise needs a target: --p99 D (the p99 latency to meet), --throughput N (the requests per second), or both"},
		{[]string{"advise", "--quick", "--hosts", "6"}, "advise needs a target"},
		{[]string{"advise", "--program", "redis", "--p99", "1ms"}, "--program"},
		{[]string{"advise", "--p99", "-1ms"}, "--p99"},
		{[]string{"advise", "--throughput", "-3"}, "--throughput"},
		// 0 is the flag's value, not a missing target: named as given
		{[]string{"advise", "--throughput", "0"}, `--throughput "0"`},
		{[]string{"advise", "--p99", "0"}, `--p99 "0"`},
		{[]string{"advise", "--p99", "0", "--throughput", "100"}, `--p99 "0"`},
		{[]string{"advise", "--p99", "1ms", "--hosts", "3"}, "--hosts"},
		{[]string{"advise", "--p99", "1ms", "--bulk-cc", "a b"}, "--bulk-cc"},
		// one the kernel does not have: refused at once, not after the idle arms
		{[]string{"advise", "--p99", "1ms", "--bulk-cc", "nosuchcc"}, "--bulk-cc"},
		{[]string{"testbed", "run", "ping-iperf", "--quick", "--bulk-cc", "nosuchcc"}, "--bulk-cc"},
		{[]string{"testbed", "run", "ptp", "--hosts", "3"}, "--hosts"},
		// a missing word names what is missing, not cobra's "accepts 1 arg(s), received 0"
		{[]string{"testbed", "run", "--quick"}, "needs one experiment NAME, got 0: one of 2pc, barrier"},
		{[]string{"testbed", "exec", "1"}, "needs a HOST and a command"},
		{[]string{"testbed", "report"}, "needs one DIR"},
		{[]string{"testbed", "run", "2pc", "--hosts", "4"}, "--hosts"},
		{[]string{"testbed", "run", "barrier", "--hosts", "1"}, "--hosts"},
		{[]string{"testbed", "run", "mixed", "--hosts", "5"}, "--hosts"},
		{[]string{"testbed", "run", "memcached-sweep", "--buffer", "0"}, "--buffer"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(c.args, &stdout, &stderr)
		msg := stderr.String()
		if code != exitUsage || !strings.Contains(msg, c.says) || strings.Count(msg, "\n") != 1 {
			t.Errorf("qjump %s: exit %d, stderr %q; want 2 and one line about %s", strings.Join(c.args, " "), code, msg, c.says)
		}
	}
}

// --p99 and --throughput refuse a target of 0 or below, or one that is no finite number, as they
// parse: the run never sees it, so no testbed is built for a target that asks for nothing (0) or
// can never be met (NaN, +Inf), and the value is named as typed.
func TestAdviseTargetsRefusedAsParsed(t *testing.T) {
	p99 := "need a latency above 0, with a unit, e.g. 500us, 1ms"
	throughput := "need a plain number of requests per second above 0, without a unit, e.g. 2000 (not 2k)"
	for _, c := range []struct{ flag, value, allowed string }{
		{"p99", "0", p99},
		{"p99", "0ms", p99},
		{"p99", "-1ms", p99},
		{"p99", "-0s", p99},
		{"p99", "", p99},
		{"p99", "1", p99},
		{"p99", "0.5ns", p99},
		{"throughput", "0", throughput},
		{"throughput", "-3", throughput},
		{"throughput", "NaN", throughput},
		{"throughput", "+Inf", throughput},
		{"throughput", "1e400", throughput},
		{"throughput", "", throughput},
		{"throughput", "5k", throughput}, // the unit is what is wrong, not the number
	} {
		cmd := newAdviseCommand(func(*adviseOptions) error { return errors.New("the run function was called") })
		cmd.SetArgs([]string{"--" + c.flag, c.value})
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		want := fmt.Sprintf("invalid --%s %q: %s", c.flag, c.value, c.allowed)
		if err == nil || flagValueError(err).Error() != want {
			t.Errorf("--%s %q: %v; want %s", c.flag, c.value, err, want)
		}
	}
}

func TestAdviseOptions(t *testing.T) {
	got := parseOptions(t, newAdviseCommand)
	if got.program != "memcached" || got.target.P99 != 0 || got.target.Throughput != 0 || got.quick || got.bulkCC != "cubic" {
		t.Errorf("defaults parsed as %+v", got)
	}
	got = parseOptions(t, newAdviseCommand, "--p99", "750us", "--throughput", "2500", "--quick", "--out", "d", "--hosts", "5", "--json")
	if got.target.P99 != 750*time.Microsecond || got.target.Throughput != 2500 || !got.quick || got.out != "d" || got.flags.cfg.Hosts != 5 || !got.json {
		t.Errorf("parsed %+v", got)
	}
}

// A throughput above what the testbed's link carries is refused naming the bound, as typed: no
// factor, line rate included, can meet it, and --throughput 1e300 ran the whole sweep to say so.
func TestAdviseThroughputBound(t *testing.T) {
	// --out names a file, refused later and before anything is built: a bound that regressed
	// fails the test rather than run a sweep (this may run as root).
	file := filepath.Join(writeFiles(t, map[string]string{"file": ""}), "file")
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--throughput", "1e300"}, `invalid --throughput "1e300": need at most 12005 requests per second: at R = 100Mb/s`},
		{[]string{"--throughput", "12006", "--p99", "1ms"}, `invalid --throughput "12006": need at most 12005`},
		{[]string{"--throughput", "1300", "--rate", "10M"}, `invalid --throughput "1300": need at most 1200 requests per second: at R = 10Mb/s`},
		// as typed, trimmed as every kept flag's text is (typedTexts)
		{[]string{"--throughput", " 13000 "}, `invalid --throughput "13000": need at most 12005`},
	} {
		args := append(append([]string{"advise"}, c.args...), "--out", file)
		_, errOut, status := run(t, args...)
		if status != exitUsage || !strings.Contains(errOut, c.says) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("qjump %s: exit %d, stderr %q; want 2 and one line saying %q", strings.Join(args, " "), status, errOut, c.says)
		}
	}
	if got := experiment.MaxThroughput(100e6); got < 12005 || got >= 12006 {
		t.Errorf("MaxThroughput(100M) = %v, want 12005.x", got)
	}
}
