package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles writes each name's body into a new temporary directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testbedRunDir is a small fan-in run's directory, as qjump testbed run writes it.
func testbedRunDir(t *testing.T) string {
	return writeFiles(t, map[string]string{
		"results.json": `{"experiment":"fan-in","title":"fan-in","testbed":{"hosts":3},"model":{"hosts":3,"rate_bps":1e8,
			"packet_bytes":1514,"epsilon_ns":50000,"mesochronous":2,"epoch_ns":1000000,"max_frame_time_ns":121120},
			"arms":[{"name":"noise","bulk":"none","param":1}]}`,
		"samples.csv": "arm,tool,metric,sender,seq,send_ns,latency_ns,lost,param\n" +
			"noise,probe,network,2,0,1000,20000,false,1\nnoise,probe,network,2,1,2000,30000,false,1\n",
	})
}

// simRunDir is a small qjump sim fct run's directory.
func simRunDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if _, errOut, status := run(t, "sim", "fct", "--flows", "20", "--racks", "2", "--hosts-per-rack", "2",
		"--spines", "1", "--out", dir); status != 0 {
		t.Fatalf("sim fct: status %d: %s", status, errOut)
	}
	return dir
}

// sim report and testbed report take their DIR alike: the directory or its results.json; what
// names no run of theirs is bad input (exit 2), a run's file that does not parse is a failure
// (exit 1) naming the file; each says so in one line.
func TestReportNames(t *testing.T) {
	runs := map[string]string{"sim": simRunDir(t), "testbed": testbedRunDir(t)}
	other := map[string]string{"sim": "testbed", "testbed": "sim"}
	corrupt := writeFiles(t, map[string]string{"results.json": "{\n  \"experiment\": \"fan-in\",\n"})
	empty := t.TempDir()
	// A row of each run's table, which report prints when it takes the DIR.
	row := map[string]string{"sim": "fct-all", "testbed": "noise"}
	for _, tool := range []string{"sim", "testbed"} {
		own := runs[tool]
		for _, c := range []struct {
			name string
			args []string
			code int
			says string // in stderr
		}{
			{"its directory", []string{own}, exitOK, ""},
			{"its results.json", []string{filepath.Join(own, "results.json")}, exitOK, ""},
			{"corrupt results.json", []string{corrupt}, exitRuntime, filepath.Join(corrupt, "results.json")},
			{"corrupt results.json named", []string{filepath.Join(corrupt, "results.json")}, exitRuntime, filepath.Join(corrupt, "results.json")},
			{"no DIR", nil, exitUsage, tool + " report needs one DIR"},
			{"two DIRs", []string{own, own}, exitUsage, tool + " report needs one DIR, the directory a run wrote (its --out) or its results.json, got 2"},
			{"missing", []string{"/nonexistent/run"}, exitUsage, `invalid DIR "/nonexistent/run": no such file or directory`},
			{"missing results.json", []string{"/nonexistent/run/results.json"}, exitUsage, "no such file or directory"},
			{"empty", []string{""}, exitUsage, `invalid DIR "": need the directory a run wrote`},
			{"another file", []string{filepath.Join(own, "summary.md")}, exitUsage, "a file; need the directory a run wrote"},
			{"a directory no run wrote", []string{empty}, exitUsage, "no results.json in it"},
			{"the other tool's run", []string{runs[other[tool]]}, exitUsage, "which qjump " + other[tool] + " report redraws"},
		} {
			t.Run(tool+"/"+c.name, func(t *testing.T) {
				out, errOut, code := run(t, append([]string{tool, "report"}, c.args...)...)
				if code != c.code || !strings.Contains(errOut, c.says) {
					t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, c.code, c.says)
				}
				if c.code == exitOK && !strings.Contains(out, row[tool]) {
					t.Errorf("stdout %q; want the run's table, with its row %s", out, row[tool])
				}
				if c.code != exitOK && strings.Count(errOut, "\n") != 1 {
					t.Errorf("stderr %q; want one line", errOut)
				}
			})
		}
	}
}

// TestTestbedReportWithoutSamples: a testbed run without its samples.csv (docs/results commits
// none) is redrawn from results.json where its plots need only the series (fan-in), and refused
// naming the file where they need every sample (ping-iperf): exit 1, a run's data, not bad input.
func TestTestbedReportWithoutSamples(t *testing.T) {
	dir := testbedRunDir(t)
	if err := os.Remove(filepath.Join(dir, "samples.csv")); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, "testbed", "report", dir); code != 0 {
		t.Errorf("fan-in without samples.csv: exit %d, stderr %q; want it redrawn from results.json", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.md")); err != nil {
		t.Errorf("fan-in without samples.csv: %v", err)
	}
	pingIperf := writeFiles(t, map[string]string{
		"results.json": `{"experiment":"ping-iperf","title":"ping-iperf","testbed":{"hosts":3},"arms":[{"name":"idle","bulk":"none"}]}`,
	})
	_, errOut, code := run(t, "testbed", "report", pingIperf)
	if code != exitRuntime || !strings.Contains(errOut, "samples.csv") || !strings.Contains(errOut, pingIperf) {
		t.Errorf("ping-iperf without samples.csv: exit %d, stderr %q; want 1 naming %s's samples.csv", code, errOut, pingIperf)
	}
}
