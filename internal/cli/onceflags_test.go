package cli

import (
	"io"
	"strings"
	"testing"
)

// A flag given twice with two values is refused with one line naming it and both values, before
// the verb runs; the devices named do not exist, so a verb that let the second through would
// fail on it, not act.
func TestRepeatedFlagIsRefused(t *testing.T) {
	calc := func(extra ...string) []string {
		return append([]string{"calc", "--hosts", "12", "--rate", "10G"}, extra...)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"up", "--dev", "qjnosuch0", "--dev", "qjnosuch1", "--hosts", "2", "--rate", "1G"},
			`--dev given twice, "qjnosuch0" and "qjnosuch1": give it once`},
		{[]string{"status", "--dev", "qjnosuch0", "--dev=qjnosuch1"}, `--dev given twice, "qjnosuch0" and "qjnosuch1"`},
		{[]string{"calc", "--hosts", "12", "--hosts", "24", "--rate", "10G"}, `--hosts given twice, "12" and "24"`},
		// a LEVEL=... list is one value: a second replaced the first
		{calc("--factors", "7=1", "--factors", "5=6"), `--factors given twice, "7=1" and "5=6"`},
		{calc("--target-rate", "5=1G", "--target-rate", "3=1G"), `--target-rate given twice, "5=1G" and "3=1G"`},
		{calc("--json", "--json=false"), `--json given twice, "true" and "false"`},
		{[]string{"down", "--dev", "qjnosuch0", "--dev", "qjnosuch1"}, `--dev given twice`},
	}
	for _, tc := range cases {
		_, errOut, status := run(t, tc.args...)
		if status != exitUsage || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: status %d, stderr %q; want 2 and one line saying %q", tc.args, status, errOut, tc.want)
		}
	}
}

// The same value twice is no ambiguity, and the lists that append keep doing so.
func TestRepeatedFlagsThatStayAllowed(t *testing.T) {
	if _, errOut, status := run(t, "calc", "--hosts", "12", "--hosts", "12", "--rate", "10G", "--json", "--json"); status != 0 {
		t.Errorf("the same value twice: status %d, stderr %q; want it accepted", status, errOut)
	}
	lists := []struct {
		args []string
		flag string
		want []string
	}{
		{[]string{"sim", "run", "--hosts", "48", "--hosts", "96,144"}, "hosts", []string{"48", "96", "144"}},
		{[]string{"barrier", "--peers", "a:1", "--peers", "b:1"}, "peers", []string{"a:1", "b:1"}},
		{[]string{"2pc", "coordinator", "--servers", "a:1,b:1", "--servers", "c:1"}, "servers", []string{"a:1", "b:1", "c:1"}},
	}
	for _, tc := range lists {
		root := NewRootCommand(io.Discard, io.Discard)
		cmd, rest, err := root.Find(tc.args)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("%v: %v, want the list to append", tc.args, err)
			continue
		}
		if got := cmd.Flags().Lookup(tc.flag).Value.String(); got != "["+strings.Join(tc.want, ",")+"]" {
			t.Errorf("%v: --%s is %s, want %v", tc.args, tc.flag, got, tc.want)
		}
	}
}

// Help, the help verb and shell completion see the wrapped flags as they were.
func TestRepeatedFlagsKeepHelpAndCompletion(t *testing.T) {
	for _, args := range [][]string{{"help", "up"}, {"up", "--help"}, {"completion", "bash"}} {
		if out, errOut, status := run(t, args...); status != 0 || out == "" {
			t.Errorf("%v: status %d, stderr %q, %d bytes out", args, status, errOut, len(out))
		}
	}
	out, _, status := run(t, "__complete", "up", "--dev", "eth0", "--de")
	if status != 0 || !strings.Contains(out, "--default-level") || strings.Contains(out, "--dev\t") {
		t.Errorf("completion after --dev: status %d, %q; want --default-level and not --dev again", status, out)
	}
}

// An empty --dev, --config, --cgroup or --out is refused, in every verb, as a flag that needs a name: it is most
// often an unset shell variable. up said `no such interface ""`, agent `open : no such file`,
// and where the flag may be left out (status, run, up --config) the empty value silently meant
// "not given". Nothing here may act: the commands do not exist and the model is incomplete.
func TestEmptyNameIsRefused(t *testing.T) {
	const dev, file = `invalid --dev "": need an interface's name, e.g. eth0`, `invalid --config "": need a configuration file's path`
	const cgroup = `invalid --cgroup "": need a cgroup's path`
	const out = `invalid --out "": need a file's or directory's path`
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"up", "--dev", "", "--hosts", "2", "--rate", "1G"}, dev},
		{[]string{"up", "--dev=", "--rate", "1G"}, dev},
		{[]string{"reload", "--dev", "", "--hosts", "3"}, dev},
		{[]string{"status", "--dev", ""}, dev},
		{[]string{"down", "--dev", ""}, dev},
		{[]string{"run", "--level", "5", "--sndbuf", "auto", "--dev", "", "--", "/nonexistent/qjump-cmd"}, dev},
		{[]string{"assign", "--cgroup", "/nonexistent", "--level", "5", "--dev", ""}, dev},
		{[]string{"agent", "--config", ""}, file},
		{[]string{"up", "--dev", "qjnosuch0", "--config", "", "--rate", "1G"}, file},
		{[]string{"reload", "--dev", "qjnosuch0", "--config", ""}, file},
		{[]string{"calc", "--config", "", "--rate", "1G"}, file},
		{[]string{"run", "--level", "5", "--config", "", "--", "/nonexistent/qjump-cmd"}, file},
		// assign --cgroup "" put the cgroup v2 root, the whole host, on the level.
		{[]string{"assign", "--cgroup", "", "--level", "5"}, cgroup},
		{[]string{"unassign", "--cgroup="}, cgroup},
		// each also refused otherwise (a bad --hosts, --flows, ...), so that none can run
		{[]string{"advise", "--p99", "1ms", "--out", "", "--hosts", "3"}, out},
		{[]string{"testbed", "run", "ping-iperf", "--out=", "--hosts", "1"}, out},
		{[]string{"sim", "run", "fig9", "--out", "", "--workers", "0"}, out},
		{[]string{"sim", "fct", "--out", "", "--flows", "0"}, out},
		{[]string{"probe", "client", "--to", "127.0.0.1:1", "--count", "0", "--out", ""}, out},
		{[]string{"run", "--level", "5", "--sndbuf", "", "--", "/nonexistent/qjump-cmd"}, "need a size in bytes"},
		{[]string{"assign", "--cgroup", "/nonexistent", "--level", "5", "--sndbuf="}, "need a size in bytes"},
	}
	for _, tc := range cases {
		_, errOut, status := run(t, tc.args...)
		if status != exitUsage || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: status %d, stderr %q; want 2 and one line saying %q", tc.args, status, errOut, tc.want)
		}
	}
}
