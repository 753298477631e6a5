package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testbed/tbtest"
	"github.com/qjump-net/qjump/internal/testutil"
)

// Bad input is refused before anything touches the kernel: one line, exit status 2. These need
// no privilege, as nothing is built.
func TestTestbedBadInput(t *testing.T) {
	otherCluster := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(otherCluster, []byte("hosts: 12\nrate: 10G\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	otherRate := filepath.Join(t.TempDir(), "rate.yaml")
	if err := os.WriteFile(otherRate, []byte("hosts: 4\nrate: 1G\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"one host", []string{"testbed", "up", "--hosts", "1"}, "--hosts"},
		{"rate 0", []string{"testbed", "up", "--hosts", "2", "--rate", "0"}, "--rate"},
		{"buffer 0", []string{"testbed", "up", "--hosts", "2", "--buffer", "0"}, "--buffer"},
		{"unknown experiment", []string{"testbed", "run", "ping-pong"}, "ping-iperf"},
		{"run with one host", []string{"testbed", "run", "ping-iperf", "--hosts", "1"}, "--hosts"},
		// 0 is not the flag left out (the experiment's own hosts); --buffer 0 keeps any from running
		{"run with 0 hosts", []string{"testbed", "run", "ping-iperf", "--hosts", "0", "--buffer", "0"}, `invalid --hosts "0": need a whole number of hosts, from 2 to 32`},
		{"advise with 0 hosts", []string{"advise", "--p99", "1ms", "--hosts", "0", "--buffer", "0"}, `invalid --hosts "0": need a whole number of hosts, from 2 to 32`},
		{"up with 0 hosts", []string{"testbed", "up", "--hosts", "0"}, `invalid --hosts "0"`},
		{"run with rate 0", []string{"testbed", "run", "fan-in", "--rate", "0"}, "--rate"},
		{"run with buffer 0", []string{"testbed", "run", "memcached", "--buffer", "0"}, "--buffer"},
		{"bad bulk cc", []string{"testbed", "run", "ping-iperf", "--bulk-cc", ""}, "--bulk-cc"},
		{"qjump config for another cluster", []string{"testbed", "up", "--hosts", "4", "--qjump", otherCluster}, "--qjump"},
		{"qjump config for another rate", []string{"testbed", "up", "--hosts", "4", "--qjump", otherRate}, "--qjump"},
		{"qjump config missing", []string{"testbed", "up", "--hosts", "4", "--qjump", "/nonexistent/q.yaml"}, "--qjump"},
		{"probe no keys", []string{"probe", "memcached", "--server", "127.0.0.1:1", "--keys", "0"}, "keys"},
		{"probe get ratio", []string{"probe", "memcached", "--server", "127.0.0.1:1", "--get-ratio", "1.5"}, "get-ratio"},
		{"probe negative value", []string{"probe", "memcached", "--server", "127.0.0.1:1", "--value", "-1"}, "value"},
		{"probe negative count", []string{"probe", "memcached", "--server", "127.0.0.1:1", "--count", "-1"}, "count"},
		{"probe client count 0", []string{"probe", "client", "--to", "127.0.0.1:1", "--count", "0"}, "count"},
		{"probe client sender", []string{"probe", "client", "--to", "127.0.0.1:1", "--sender", "70000"}, "sender"},
		{"probe server tos", []string{"probe", "server", "--tos", "300"}, "tos"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(tc.args, &stdout, &stderr)
			msg := stderr.String()
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, exitUsage, msg)
			}
			if strings.Count(strings.TrimSpace(msg), "\n") != 0 || !strings.Contains(msg, tc.want) {
				t.Fatalf("want one line naming %s, got %q", tc.want, msg)
			}
		})
	}
}

func TestTestbedUpOptions(t *testing.T) {
	got := parseOptions(t, newTestbedUpCommand, "--hosts", "4")
	if want := testbed.DefaultConfig(4); got.flags.cfg != want || got.qjump != "" {
		t.Errorf("--hosts 4 parsed as %+v, want %+v", got.flags.cfg, want)
	}
	got = parseOptions(t, newTestbedUpCommand, "--hosts", "12", "--rate", "1G", "--buffer", "200", "--host-queue", "50",
		"--classify", "pcp", "--prefix", "qjx", "--qjump", "c.yaml")
	c := got.flags.cfg
	if c.Hosts != 12 || c.Rate != 1e9 || c.Buffer != 200 || c.HostQueue != 50 || c.Classify != testbed.ClassifyPCP ||
		c.Prefix != "qjx" || got.qjump != "c.yaml" {
		t.Errorf("parsed %+v, qjump %q", c, got.qjump)
	}
}

func TestTestbedRunOptions(t *testing.T) {
	got := parseOptions(t, newTestbedRunCommand, "fan-in", "--quick", "--out", "d", "--bulk-cc", "bbr", "--epsilon", "20us",
		"--hosts", "6", "--json")
	if got.name != "fan-in" || !got.quick || got.out != "d" || got.bulkCC != "bbr" || got.epsilon != 20*time.Microsecond || !got.epsSet ||
		got.flags.cfg.Hosts != 6 || !got.json {
		t.Errorf("parsed %+v", got)
	}
	if got := parseOptions(t, newTestbedRunCommand, "memcached"); got.bulkCC != "cubic" || got.flags.cfg.Prefix != testbed.DefaultPrefix || got.rateSet {
		t.Errorf("defaults parsed as %+v", got)
	}
	// --epsilon 0 is an ε given, not the flag left out (the run measured one and used it).
	if o, _ := parseOptions(t, newTestbedRunCommand, "fan-in", "--epsilon", "0").experimentOptions(); !o.EpsilonGiven || o.Epsilon != 0 {
		t.Errorf("--epsilon 0: given %v, ε %v; want given, 0", o.EpsilonGiven, o.Epsilon)
	}
	if o, _ := parseOptions(t, newTestbedRunCommand, "fan-in").experimentOptions(); o.EpsilonGiven {
		t.Errorf("no --epsilon: given %v; want the run to measure it", o.EpsilonGiven)
	}
	// Without --rate each experiment runs at its own default rate; with it, at the rate given.
	o, err := parseOptions(t, newTestbedRunCommand, "fan-in").experimentOptions()
	if err != nil || o.Testbed.Rate != 0 {
		t.Errorf("fan-in without --rate: rate %v, %v; want 0 (the experiment's default)", o.Testbed.Rate, err)
	}
	if got := parseOptions(t, newTestbedRunCommand, "fan-in", "--rate", "100M"); !got.rateSet || got.flags.cfg.Rate != 100e6 {
		t.Errorf("--rate 100M parsed as %+v", got)
	}
}

func TestTestbedPrefixOptions(t *testing.T) {
	if got := parseOptions(t, newTestbedDownCommand); got.prefix != testbed.DefaultPrefix {
		t.Errorf("down: prefix %q, want %q", got.prefix, testbed.DefaultPrefix)
	}
	if got := parseOptions(t, newTestbedDownCommand, "--prefix", "qjx"); got.prefix != "qjx" {
		t.Errorf("down --prefix qjx: %+v", got)
	}
	if got := parseOptions(t, newTestbedStatusCommand, "--prefix", "qjx", "--json"); got.prefix != "qjx" || !got.json {
		t.Errorf("status: %+v", got)
	}
	got := parseOptions(t, newTestbedExecCommand, "--prefix", "qjx", "2", "--", "ping", "-c", "3", "198.18.0.1")
	if got.prefix != "qjx" || got.host != "2" || strings.Join(got.command, " ") != "ping -c 3 198.18.0.1" {
		t.Errorf("exec: %+v", got)
	}
	if got := parseOptions(t, newTestbedReportCommand, "results/x", "--json"); got.dir != "results/x" || !got.json {
		t.Errorf("report: %+v", got)
	}
}

// A run with an arm that recorded nothing exits non-zero, printing its table with the fault:
// `testbed report` judges the files exactly as `testbed run` judges them when it ends.
func TestTestbedReportFailsOnAllLostArm(t *testing.T) {
	dir := t.TempDir()
	doc := `{"experiment":"fan-in","title":"fan-in","testbed":{"hosts":3},"model":{"hosts":3,"rate_bps":1e8,
		"packet_bytes":1514,"epsilon_ns":50000,"mesochronous":2,"epoch_ns":1000000,"max_frame_time_ns":121120},
		"arms":[{"name":"noise","bulk":"none","param":1},{"name":"f7=1","qjump":true,"bulk":"h2→h1","param":1}]}`
	samples := "arm,tool,metric,sender,seq,send_ns,latency_ns,lost,param\n" +
		"noise,probe,network,2,0,1000,20000,false,1\nnoise,probe,network,2,1,2000,30000,false,1\n" +
		"f7=1,probe,network,2,0,0,0,true,1\nf7=1,probe,network,2,1,0,0,true,1\n"
	for name, body := range map[string]string{"results.json": doc, "samples.csv": samples} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"testbed", "report", dir}, &stdout, &stderr)
	if code == exitOK || !strings.Contains(stderr.String(), "arm f7=1: probe network lost all 2 samples") {
		t.Errorf("exit %d, stderr %q; want a failure naming the all-lost arm", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "MEASUREMENT FAULTS") || strings.Contains(stdout.String(), "A: bound met") {
		t.Errorf("table of a faulty run:\n%s", stdout.String())
	}
}

// testbed run's --rate has no single default: each experiment picks its own, and the help must
// not claim testbed up's 100M for all of them.
func TestTestbedRunRateHelp(t *testing.T) {
	out, _, status := run(t, "testbed", "run", "--help")
	if status != 0 || strings.Contains(out, "(default 100Mb/s)") || !strings.Contains(out, "10M for fan-in and ping-iperf") {
		t.Errorf("testbed run --help (status %d) says of --rate:\n%s", status, out)
	}
	out, _, _ = run(t, "testbed", "--help")
	for _, want := range []string{"--classify pcp", "--host-nic realistic: 4 TX queues"} {
		if !strings.Contains(out, want) {
			t.Errorf("testbed --help lacks %q", want)
		}
	}
}

// A bare qjump in exec's command is the qjump that runs the testbed, on PATH or not; any other
// command, a qjump given by its path included, is run as given.
func TestTestbedExecRunsThisQJump(t *testing.T) {
	saved := testbed.Binary
	t.Cleanup(func() { testbed.Binary = saved })
	testbed.Binary = "/opt/build/bin/qjump"
	for _, c := range []struct{ in, want []string }{
		{[]string{"qjump", "run", "--level", "7", "--", "ping"}, []string{"/opt/build/bin/qjump", "run", "--level", "7", "--", "ping"}},
		{[]string{"/usr/bin/qjump", "status"}, []string{"/usr/bin/qjump", "status"}},
		{[]string{"ping", "qjump"}, []string{"ping", "qjump"}},
	} {
		if got := execArgv(c.in); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("execArgv(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// report takes what a hurried user names: a run's results.json as well as its directory; a
// directory an interrupted run left says so; another file is bad input, exit 2.
func TestTestbedReportNames(t *testing.T) {
	run := t.TempDir()
	doc := `{"experiment":"fan-in","title":"fan-in","testbed":{"hosts":3},"model":{"hosts":3,"rate_bps":1e8,
		"packet_bytes":1514,"epsilon_ns":50000,"mesochronous":2,"epoch_ns":1000000,"max_frame_time_ns":121120},
		"arms":[{"name":"noise","bulk":"none","param":1}]}`
	samples := "arm,tool,metric,sender,seq,send_ns,latency_ns,lost,param\n" +
		"noise,probe,network,2,0,1000,20000,false,1\nnoise,probe,network,2,1,2000,30000,false,1\n"
	for name, body := range map[string]string{"results.json": doc, "samples.csv": samples, "summary.md": ""} {
		if err := os.WriteFile(filepath.Join(run, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stopped := t.TempDir()
	if err := os.MkdirAll(filepath.Join(stopped, "raw"), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"testbed", "report", filepath.Join(run, "results.json")}, &stdout, &stderr)
	if code != exitOK || !strings.Contains(stdout.String(), "noise") {
		t.Errorf("report DIR/results.json: exit %d, stderr %q", code, stderr.String())
	}
	for _, c := range []struct{ arg, says string }{
		{stopped, "stopped before it finished"},
		{filepath.Join(run, "summary.md"), "a file; need the directory"},
	} {
		stdout.Reset()
		stderr.Reset()
		code := Main([]string{"testbed", "report", c.arg}, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), c.says) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("report %s: exit %d, stderr %q; want 2 and one line saying %q", c.arg, code, stderr.String(), c.says)
		}
	}
}

// stalls ends with its standard input only where that input can end on purpose: a pipe (testbed
// run's) or a terminal. /dev/null or a file, a script's or cron's, ended it before it measured.
func TestStallsWatchesOnlyPipesAndTerminals(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file := filepath.Join(writeFiles(t, map[string]string{"in": ""}), "in")
	regular, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	for _, c := range []struct {
		name string
		in   *os.File
		want bool
	}{{"/dev/null", null, false}, {"a pipe", r, true}, {"a regular file", regular, false}} {
		if got := watchesStdin(c.in); got != c.want {
			t.Errorf("watchesStdin(%s) = %v, want %v", c.name, got, c.want)
		}
	}
}

// An --out that cannot be written is refused before the measurement, exit 2, not after it.
func TestStallsRefusesUnwritableOut(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := Main([]string{"testbed", "stalls", "--out", "/nonexistent/stalls.csv", "--for", "1s"}, &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "--out") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 2 and one line naming --out", code, stderr.String())
	}
}

// The verbs that build or remove a testbed say, as nobody, that they need root and what is
// missing, exit 1, and leave nothing behind: they said `invalid --bulk-cc "cubic"` (an
// unprivileged process may set only the allowed congestion controls) or `permission denied` on
// the lock file, and left an empty results/NAME-TIME. Input that is bad whoever gives it is
// still named first, exit 2.
func TestTestbedVerbsNeedRoot(t *testing.T) {
	testutil.RequirePriv(t, "running qjump as nobody")
	dir := testutil.SharedTempDir(t)
	if err := os.Chmod(dir, 0o777); err != nil { // where nobody's run would write results/
		t.Fatal(err)
	}
	nobody := []string{"--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "env", "-C", dir, testutil.QjumpBinary(t)}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"advise", "--p99", "1ms"}, exitRuntime, "needs root: this process lacks CAP_NET_ADMIN and CAP_SYS_ADMIN: run it with sudo"},
		{[]string{"advise", "--throughput", "100", "--out", filepath.Join(dir, "advise")}, exitRuntime, "needs root"},
		{[]string{"testbed", "run", "ping-iperf", "--quick"}, exitRuntime, "needs root: this process lacks CAP_NET_ADMIN and CAP_SYS_ADMIN"},
		{[]string{"testbed", "run", "memcached", "--bulk-cc", "bbr", "--out", filepath.Join(dir, "m")}, exitRuntime, "needs root"},
		{[]string{"testbed", "up", "--hosts", "2"}, exitRuntime, "needs root"},
		{[]string{"testbed", "down"}, exitRuntime, "needs root"},
		{[]string{"testbed", "exec", "1", "--", "true"}, exitRuntime, "needs root"},
		{[]string{"testbed", "run", "ping-pong"}, exitUsage, "unknown experiment"},
		{[]string{"testbed", "up", "--hosts", "1"}, exitUsage, "--hosts"},
		{[]string{"advise", "--p99", "1ms", "--hosts", "3"}, exitUsage, "--hosts"},
	} {
		_, errOut, code := testutil.Run(t, nil, "setpriv", append(nobody, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.says) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("nobody: qjump %s: exit %d, stderr %q; want %d and one line saying %q", strings.Join(c.args, " "), code, errOut, c.code, c.says)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("nobody: qjump %s left %s behind", strings.Join(c.args, " "), left[0].Name())
			os.RemoveAll(filepath.Join(dir, left[0].Name()))
		}
	}
}

// status and stalls, run as nobody, say in one line what needs root: status shows what anyone may
// read, the hosts without the QJUMP column that enters their namespaces (each host's column said
// "error: enter network namespace ...: operation not permitted", exit 0), and stalls refuses
// before it creates --out (one "operation not permitted" line per CPU, after creating it).
func TestTestbedStatusAndStallsWithoutRoot(t *testing.T) {
	bin := tbtest.RequireTools(t)
	dir := testutil.SharedTempDir(t)
	if err := os.Chmod(dir, 0o777); err != nil { // where nobody's stalls would write --out
		t.Fatal(err)
	}
	nobody := []string{"--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", bin}
	for _, c := range []struct {
		args []string
		says string
	}{
		{nil, "the stall monitor needs root: this process lacks CAP_SYS_NICE (real-time priority for its threads): run it with sudo"},
		{[]string{"--awake"}, "lacks CAP_SYS_NICE (real-time priority for its threads) and write access to /dev/cpu_dma_latency"},
	} {
		out := filepath.Join(dir, "stalls.csv")
		args := append([]string{"testbed", "stalls", "--out", out, "--for", "1s"}, c.args...)
		_, errOut, code := testutil.Run(t, nil, "setpriv", append(nobody, args...)...)
		if code != exitRuntime || !strings.Contains(errOut, c.says) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("nobody: qjump %s: exit %d, stderr %q; want 1 and one line saying %q", strings.Join(args, " "), code, errOut, c.says)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("nobody: qjump %s created --out", strings.Join(args, " "))
			os.Remove(out)
		}
	}

	prefix := tbtest.Prefix(t)
	if _, errOut, code := testutil.Run(t, nil, bin, "testbed", "up", "--hosts", "2", "--prefix", prefix); code != 0 {
		t.Fatalf("testbed up: exit %d, %s", code, errOut)
	}
	t.Cleanup(func() { testutil.Run(t, nil, bin, "testbed", "down", "--prefix", prefix) })
	if out, errOut, code := testutil.Run(t, nil, bin, "testbed", "status", "--prefix", prefix); code != 0 ||
		!hasLine(out, "HOST NAMESPACE ADDRESS SWITCH PORT QJUMP") || !hasLine(out, "2 "+prefix+"-h2 198.18.0.2 "+prefix+"-s2 off") {
		t.Errorf("root: status exit %d, stderr %q, stdout:\n%s\nwant each host's QJUMP, off", code, errOut, out)
	}
	out, errOut, code := testutil.Run(t, nil, "setpriv", append(nobody, "testbed", "status", "--prefix", prefix)...)
	want := "QJUMP not shown: reading it enters each host's network namespace, and the testbed needs root: " +
		"this process lacks CAP_NET_ADMIN and CAP_SYS_ADMIN: run it with sudo, or grant it CAP_NET_ADMIN and CAP_SYS_ADMIN\n"
	if code != 0 || errOut != "" || !hasLine(out, "HOST NAMESPACE ADDRESS SWITCH PORT") || !hasLine(out, "2 "+prefix+"-h2 198.18.0.2 "+prefix+"-s2") ||
		!strings.HasSuffix(out, want) || strings.Count(out, "needs root") != 1 {
		t.Errorf("nobody: status exit %d, stderr %q, stdout:\n%s\nwant the hosts without QJUMP, then %q", code, errOut, out, want)
	}
	out, _, code = testutil.Run(t, nil, "setpriv", append(nobody, "testbed", "status", "--prefix", prefix, "--json")...)
	var st testbedStatusJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 || st.Config.Hosts != 2 || len(st.Hosts) != 2 ||
		!strings.HasPrefix(st.Hosts[1].Error, "the testbed needs root: ") || st.Hosts[1].Host != 2 {
		t.Errorf("nobody: status --json exit %d (%v): %s\nwant both hosts, each whose error says the testbed needs root", code, err, out)
	}
}

// hasLine says whether out has a line of these words, whatever the spaces between them.
func hasLine(out, words string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(line), " ") == words {
			return true
		}
	}
	return false
}

// An --out that cannot be a run's directory (an existing file, a path under /proc) is bad input
// in every verb that writes one, exit 2 naming --out and what it takes. advise and testbed run
// failed with exit 1, "create output directory: ...", where the sim verbs said --out.
func TestRunVerbsRefuseBadOut(t *testing.T) {
	testutil.RequirePriv(t, "advise and testbed run check the privilege before --out")
	file := filepath.Join(writeFiles(t, map[string]string{"file": ""}), "file")
	for _, out := range []string{file, "/proc/qjump-x"} {
		for _, verb := range [][]string{
			{"testbed", "run", "ping-iperf", "--quick"}, {"advise", "--p99", "1ms"},
			{"sim", "run", "fig9", "--quick"}, {"sim", "fct"},
		} {
			args := append(verb, "--out", out)
			_, errOut, status := run(t, args...)
			if status != exitUsage || !strings.HasPrefix(errOut, fmt.Sprintf("qjump: invalid --out %q: ", out)) ||
				!strings.Contains(errOut, outAllowed) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("qjump %s: exit %d, stderr %q; want 2 and one line naming --out and what it takes", strings.Join(args, " "), status, errOut)
			}
		}
	}
}

// The testbed's --rate is refused outside what it emulates, named as typed, and a number without
// a unit is said to be bits per second, as calc and up say: --rate 10 was 10b/s, and 1b/s got as
// far as tc ("rate" is required) with the testbed half built.
func TestTestbedRateRange(t *testing.T) {
	// Each command line also has an input refused later, before anything is built, so that a
	// rate check that regressed fails the test rather than build a testbed (this runs as root).
	file := filepath.Join(writeFiles(t, map[string]string{"file": ""}), "file")
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"testbed", "up", "--hosts", "2", "--rate", "1b/s"}, `invalid --rate "1b/s": need 1Mb/s to 1Gb/s: below 1Mb/s the eight queues`},
		{[]string{"testbed", "up", "--hosts", "2", "--rate", "10"}, `invalid --rate "10": need 1Mb/s to 1Gb/s`},
		{[]string{"testbed", "up", "--hosts", "2", "--rate", "10"}, `a number without a unit is bits per second (10b/s), e.g. 10M for 10 Mb/s`},
		{[]string{"testbed", "run", "fan-in", "--rate", "999k"}, `invalid --rate "999k": need 1Mb/s to 1Gb/s`},
		{[]string{"advise", "--p99", "1ms", "--rate", "2G"}, `invalid --rate "2G": need 1Mb/s to 1Gb/s`},
	} {
		guard := []string{"--out", file}
		if c.args[1] == "up" {
			guard = []string{"--qjump", "/nonexistent/q.yaml"}
		}
		_, errOut, status := run(t, append(c.args, guard...)...)
		if status != exitUsage || !strings.Contains(errOut, c.says) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("qjump %s: exit %d, stderr %q; want 2 and one line saying %q", strings.Join(c.args, " "), status, errOut, c.says)
		}
	}
	for _, c := range []struct {
		rate string
		warn bool
	}{{"100000000", true}, {"100M", false}, {"1000000b", false}} {
		got := parseOptions(t, newTestbedUpCommand, "--hosts", "2", "--rate", c.rate).flags
		if w := got.warnings(); (len(w) == 1) != c.warn || c.warn && !strings.Contains(w[0], `--rate "100000000" has no unit: read as 100Mb/s`) {
			t.Errorf("--rate %s: warnings %q, want one: %v", c.rate, w, c.warn)
		}
	}
	if got := parseOptions(t, newTestbedUpCommand, "--hosts", "2", "--rate", "1M").flags.cfg; got.Rate != testbed.MinRate || got.Validate() != nil {
		t.Errorf("--rate 1M: %v, %v; want the lowest rate the testbed runs", got.Rate, got.Validate())
	}
}

// Every verb refuses a bad --prefix as bad input, naming the flag and the value as typed, before
// anything is made: `down --prefix Zq` exited 1 ("remove testbed: invalid prefix") leaving
// RunDir/Zq.lock, and status and exec did not check it at all.
func TestTestbedVerbsRefuseABadPrefix(t *testing.T) {
	dir := t.TempDir()
	testutil.Set(t, &testbed.RunDir, dir)
	for _, prefix := range []string{"Zq", "", "../../tmp/rvtrav"} {
		for _, verb := range [][]string{{"down"}, {"status"}, {"exec", "1", "--", "true"}, {"up", "--hosts", "2"},
			{"run", "fan-in", "--quick", "--out", filepath.Join(dir, "out")}} {
			args := append([]string{"testbed", verb[0], "--prefix", prefix}, verb[1:]...)
			_, errOut, status := run(t, args...)
			want := fmt.Sprintf("qjump: invalid --prefix %q: need %s\n", prefix, testbed.PrefixAllowed)
			if status != exitUsage || errOut != want {
				t.Errorf("qjump %s: exit %d, stderr %q; want 2 and %q", strings.Join(args, " "), status, errOut, want)
			}
		}
	}
	if made, _ := os.ReadDir(dir); len(made) != 0 {
		t.Errorf("refused prefixes made %v in the run directory", made)
	}
}

// An ε that makes the epoch over a second is refused before anything is built, quoted as typed:
// --epsilon 10s (a slip for 10us) made a quick fan-in arm, sized in epochs, last 40 minutes.
func TestTestbedRunRefusesALongEpsilon(t *testing.T) {
	for _, eps := range []string{"10s", "10000ms"} {
		// A prefix and --out of the test's own: were the refusal gone, the run would build no
		// testbed of the default prefix and write nothing into results/ (review, helper-56).
		_, errOut, status := run(t, "testbed", "run", "fan-in", "--quick", "--epsilon", eps,
			"--prefix", tbtest.Prefix(t), "--out", filepath.Join(t.TempDir(), "out"))
		want := fmt.Sprintf("qjump: invalid --epsilon %q: need at most 987.7ms at 5 hosts and R=10Mb/s, so that the epoch is at most 1s", eps)
		if status != exitUsage || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("--epsilon %s: exit %d, stderr %q; want 2 and one line starting %q", eps, status, errOut, want)
		}
	}
}

// stalls --for 0 is refused quoting the value as typed, as every flag's is: it said "--for 0s".
func TestStallsForRefusedAsTyped(t *testing.T) {
	for _, v := range []string{"0", "-1s", "2x"} {
		_, errOut, status := run(t, "testbed", "stalls", "--out", filepath.Join(t.TempDir(), "s.csv"), "--for", v)
		want := fmt.Sprintf("qjump: invalid --for %q: need a duration above 0, with a unit, e.g. 15s\n", v)
		if status != exitUsage || errOut != want {
			t.Errorf("--for %s: exit %d, stderr %q; want 2 and %q", v, status, errOut, want)
		}
	}
}

// advise lists the --bulk-cc values in its help, as testbed run does.
func TestAdviseHelpListsBulkCC(t *testing.T) {
	out, _, _ := run(t, "advise", "--help")
	if !strings.Contains(out, bulkCCUsage) {
		t.Errorf("advise --help does not say %q:\n%s", bulkCCUsage, out)
	}
}

// A --qjump file's mode is the mode the hosts run, shape where it names none; its mark, where it
// gives one, must be the field the switch classifies on or both (which the hosts run as it is),
// and its marks of that field ones the switch reads the levels from. All are refused before anything is built (exit 2), as is
// autoclass without a mode, which the testbed's shape would refuse on a host after building.
func TestTestbedQJumpConfigModeAndMark(t *testing.T) {
	dscp, pcp := testbed.DefaultConfig(2), testbed.DefaultConfig(2)
	pcp.Classify = testbed.ClassifyPCP
	for _, c := range []struct {
		name, file string
		tb         testbed.Config
		mode       config.Mode
		refusal    string // in the one line; "" for none
	}{
		// mark: both marks the field the switch reads too: run as it is, under either field.
		{"mark both, classify pcp", "mark: both\n", pcp, config.Shape, ""},
		{"mark both, classify dscp", "mark: both\n", dscp, config.Shape, ""},
		{"no mode", "", dscp, config.Shape, ""},
		{"mode police", "mode: police\n", dscp, config.Police, ""},
		{"mode shape", "mode: shape\n", dscp, config.Shape, ""},
		{"mark dscp", "mark: dscp\n", dscp, config.Shape, ""},
		{"no mark, classify pcp", "", pcp, config.Shape, ""},
		{"mark pcp, classify pcp", "mark: pcp\n", pcp, config.Shape, ""},
		{"mark pcp, classify dscp", "mark: pcp\n", dscp, "", "its mark is pcp, and the testbed's switch classifies on dscp (--classify): need mark: dscp, both, or no mark"},
		{"mark dscp, classify pcp", "mark: dscp\n", pcp, "", "its mark is dscp, and the testbed's switch classifies on pcp (--classify): need mark: pcp, both, or no mark"},
		// The hosts have no VLAN interfaces: a tag with an id dropped every packet.
		{"mark both, vlan 100", "mark: both\nvlan_id: 100\n", dscp, "", "its vlan_id is 100, and the testbed's hosts have no VLAN interfaces, so they drop frames tagged with a VLAN id: need vlan_id: 0 (a priority tag, the default) with mark: both"},
		{"mark pcp, vlan 100", "mark: pcp\nvlan_id: 100\n", pcp, "", "its vlan_id is 100"},
		{"mark dscp, vlan 100", "mark: dscp\nvlan_id: 100\n", dscp, config.Shape, ""},
		// No mark: the hosts run --classify's, pcp here, which pushes the tag (review, helper-100).
		{"no mark, classify pcp, vlan 100", "vlan_id: 100\n", pcp, "", "its vlan_id is 100, and the testbed's hosts have no VLAN interfaces, so they drop frames tagged with a VLAN id: need vlan_id: 0 (a priority tag, the default) with mark: pcp"},
		{"autoclass without a mode", "autoclass: true\n", dscp, "", "autoclass demotes instead of dropping, so it needs mode police (the testbed runs shape mode where the file names no mode)"},
		{"autoclass, police", "mode: police\nautoclass: true\n", dscp, config.Police, ""},
		// The switch reads the level from DSCP's class selector, or from the PCP: a table it
		// cannot read the levels from was taken, and put level 7's traffic in level 5's queue.
		{"dscp: class selectors", "dscp: {7: 56, 0: 0}\n", dscp, config.Shape, ""},
		{"dscp: an AF class inside the level's", "dscp: {4: 34}\n", dscp, config.Shape, ""},
		{"dscp: EF for level 7", "dscp: {7: 46}\n", dscp, "", `its dscp[7] is 46, in CS5's class, and the testbed's switch takes a DSCP's ` +
			`class selector as the level (--classify dscp): need 56 to 63 for level 7 (CS7 is 56)`},
		{"dscp: level 0 in CS1", "dscp: {0: 8}\n", dscp, "", "its dscp[0] is 8, in CS1's class"},
		{"dscp table, classify pcp", "dscp: {7: 46}\n", pcp, config.Shape, ""},
		{"pcp: the levels", "pcp: {7: 7, 1: 1}\n", pcp, config.Shape, ""},
		{"pcp: 5 for level 7", "pcp: {7: 5}\n", pcp, "", `its pcp[7] is 5, and the testbed's switch takes the PCP as the level ` +
			`(--classify pcp): need 7 for level 7`},
		{"pcp table, classify dscp", "pcp: {7: 5}\n", dscp, config.Shape, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "cluster.yaml")
			if err := os.WriteFile(file, []byte("hosts: 2\nrate: 100M\n"+c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			mode, mark, err := checkQJumpConfig(file, c.tb)
			wantMark := config.Mark(c.tb.Classify)
			if strings.Contains(c.file, "mark: both") {
				wantMark = config.MarkBoth
			}
			var usage *UsageError
			switch {
			case c.refusal == "" && (err != nil || mode != c.mode || mark != wantMark):
				t.Errorf("mode %q, mark %q, %v; want %s, %s", mode, mark, err, c.mode, wantMark)
			case c.refusal != "" && (!errors.As(err, &usage) || !strings.Contains(err.Error(), c.refusal) || strings.Contains(err.Error(), "\n")):
				t.Errorf("%v; want a one-line usage error saying %q", err, c.refusal)
			}
		})
	}
}

// TestTestbedUpTakesTheFilesModeAndMark: up --qjump CONFIG runs the file's mode (shape where it
// names none, as before), and refuses a file whose mark is not the field the switch classifies
// on, in one line (exit 2) before it builds anything. Up gave every host --mode shape and --mark
// before the file, and a flag wins over the file: a file's mode: police ran shape mode without a
// word, and its mark: pcp marked DSCP.
func TestTestbedUpTakesTheFilesModeAndMark(t *testing.T) {
	bin := tbtest.RequireTools(t)
	for _, c := range []struct {
		name, file string
		mode       string // that every host runs; "" for a refusal
		refusal    string
		warns      string // what qjump up on the hosts warned of, which testbed up passes on
	}{
		{"mode police", "mode: police\n", "police", "", "qjump: warning: police mode: TCP sends GSO packets"},
		{"no mode", "factors: {7: 1, 0: unlimited}\n", "shape", "", ""},
		{"mark pcp", "mark: pcp\n", "", `invalid --qjump "FILE": its mark is pcp, and the testbed's switch classifies on dscp (--classify): need mark: dscp, both, or no mark`, ""},
		// A production file that pushes a PCP tag beside its DSCP runs as it is: the switch
		// reads the DSCP, and the hosts take the priority-tagged frames (the ping below).
		{"mark both", "mark: both\n", "shape", "", ""},
		{"dscp 46 for level 7", "dscp: {7: 46}\n", "", `invalid --qjump "FILE": its dscp[7] is 46, in CS5's class, and the testbed's switch ` +
			`takes a DSCP's class selector as the level (--classify dscp): need 56 to 63 for level 7 (CS7 is 56)`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			prefix := tbtest.Prefix(t)
			file := filepath.Join(t.TempDir(), "cluster.yaml")
			if err := os.WriteFile(file, []byte("hosts: 2\nrate: 100M\n"+c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := testutil.Run(t, nil, bin, "testbed", "up", "--hosts", "2", "--prefix", prefix, "--qjump", file)
			t.Cleanup(func() { testutil.Run(t, nil, bin, "testbed", "down", "--prefix", prefix) })
			if c.refusal != "" {
				want := "qjump: " + strings.ReplaceAll(c.refusal, "FILE", file) + "\n"
				if code != exitUsage || errOut != want || testbed.Exists(prefix) {
					t.Errorf("exit %d, stderr %q, built: %v; want exit 2, %q, nothing built", code, errOut, testbed.Exists(prefix), want)
				}
				return
			}
			if code != 0 {
				t.Fatalf("testbed up: exit %d, %s", code, errOut)
			}
			if !strings.Contains(errOut, c.warns) || c.warns == "" && strings.Contains(errOut, "police mode") {
				t.Errorf("testbed up said %q; want %q (review, helper-74: qjump up's warnings were lost)", errOut, c.warns)
			}
			out, _, _ := testutil.Run(t, nil, bin, "testbed", "status", "--prefix", prefix, "--json")
			var st testbedStatusJSON
			if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Hosts) != 2 {
				t.Fatalf("status --json (%v): %s", err, out)
			}
			for _, h := range st.Hosts {
				if !h.Up || h.Mode != c.mode {
					t.Errorf("host %d: %+v; want QJump up in %s mode", h.Host, h, c.mode)
				}
			}
			if c.name != "mark both" {
				return
			}
			// Both marks on the host, and level 7's tagged frames cross the switch.
			out, errOut, code = testutil.Run(t, nil, bin, "testbed", "exec", "--prefix", prefix, "1", "--", "qjump", "status", "--dev", "eth0", "--json")
			if code != 0 || !strings.Contains(out, `"mark": "both"`) {
				t.Errorf("host 1's status (exit %d, %s): want mark both in\n%s", code, errOut, out)
			}
			_, errOut, code = testutil.Run(t, nil, bin, "testbed", "exec", "--prefix", prefix, "1", "--",
				"qjump", "run", "--level", "7", "--mode", "cgroup", "--", "ping", "-c", "2", "-W", "2", testbed.Names{Prefix: prefix}.HostAddr(2).String())
			if code != 0 {
				t.Errorf("ping from host 1 at level 7, marked both: exit %d, %s", code, errOut)
			}
		})
	}
}

// TestTestbedStatusFollowsTheHosts: status's headline says what the hosts run, not whether up was
// given --qjump, and a mix of hosts with and without QJump is a warning, as differing
// configurations are: `qjump up` in two of three hosts of a testbed built without QJump showed
// "QJump off" above a QJUMP column of shape, shape, off, with no warning.
func TestTestbedStatusFollowsTheHosts(t *testing.T) {
	bin := tbtest.RequireTools(t)
	prefix := tbtest.Prefix(t)
	if _, errOut, code := testutil.Run(t, nil, bin, "testbed", "up", "--hosts", "3", "--prefix", prefix); code != 0 {
		t.Fatalf("testbed up: exit %d, %s", code, errOut)
	}
	t.Cleanup(func() { testutil.Run(t, nil, bin, "testbed", "down", "--prefix", prefix) })
	mixed := "warning: QJump runs on 2 of 3 hosts (see QJUMP)"
	for _, c := range []struct {
		upOn     []string // hosts to run `qjump up` in first
		headline string
		running  int
	}{
		{nil, "QJump off", 0},
		{[]string{"1", "2"}, "QJump on 2 of 3 hosts", 2},
		{[]string{"3"}, "QJump on", 3},
	} {
		for _, h := range c.upOn {
			if _, errOut, code := testutil.Run(t, nil, bin, "testbed", "exec", "--prefix", prefix, h, "--",
				"qjump", "up", "--dev", "eth0", "--hosts", "3", "--rate", "100M", "--mode", "shape"); code != 0 {
				t.Fatalf("qjump up in host %s: exit %d, %s", h, code, errOut)
			}
		}
		out, errOut, code := testutil.Run(t, nil, bin, "testbed", "status", "--prefix", prefix)
		first, _, _ := strings.Cut(out, "\n")
		if code != 0 || !strings.HasSuffix(first, ", "+c.headline) || strings.Contains(out, mixed) != (c.running == 2) {
			t.Errorf("QJump up on %d hosts: status exit %d, stderr %q, stdout:\n%s\nwant the headline to end %q, and %q only when 2 of 3 run it",
				c.running, code, errOut, out, c.headline, mixed)
		}
		out, _, code = testutil.Run(t, nil, bin, "testbed", "status", "--prefix", prefix, "--json")
		var st testbedStatusJSON
		if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 || st.QJumpHosts == nil || *st.QJumpHosts != c.running || st.QJump {
			t.Errorf("QJump up on %d hosts: status --json exit %d (%v): %s\nwant qjump_hosts %d, and qjump false (up had no --qjump)",
				c.running, code, err, out, c.running)
		}
	}
}

// A --qjump that names no file, or a file with a bad key, is refused as --config is: the value
// quoted, what is allowed said, and the file's path not said twice (review, helper-99: "invalid
// --qjump: read config: open /nope.yaml: no such file or directory").
func TestTestbedQJumpFileErrorsNameTheFlag(t *testing.T) {
	c := testbed.DefaultConfig(2)
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	_, _, err := checkQJumpConfig(missing, c)
	var usage *UsageError
	if want := fmt.Sprintf("invalid --qjump %q: no such file or directory; need a configuration file's path", missing); !errors.As(err, &usage) || err.Error() != want {
		t.Errorf("a missing file: %v; want a usage error %q", err, want)
	}
	typo := filepath.Join(t.TempDir(), "typo.yaml")
	if err := os.WriteFile(typo, []byte("hosts: 2\nrate: 100M\nfactor: {7: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = checkQJumpConfig(typo, c)
	if want := fmt.Sprintf("invalid --qjump %q: invalid key \"factor\"", typo); !errors.As(err, &usage) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a bad key: %v; want a usage error starting %q", err, want)
	}
}
