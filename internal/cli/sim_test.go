package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSimFCTWritesFlowsAndResults(t *testing.T) {
	dir := t.TempDir()
	out, errOut, status := run(t, "sim", "fct", "--scheme", "dctcp", "--workload", "datamining", "--load", "0.4",
		"--flows", "50", "--racks", "2", "--hosts-per-rack", "4", "--spines", "2", "--out", dir)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	for _, want := range []string{"P99 x ideal", "dctcp-0.4  datamining  fct-small", "packet-hops"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	csv, err := os.ReadFile(filepath.Join(dir, "flows.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(csv), "\n"); lines != 51 {
		t.Errorf("flows.csv has %d lines, want a header and 50 flows", lines)
	}
	for _, f := range []string{"results.json", "summary.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	// report rebuilds the same table from the files.
	rep, errOut, status := run(t, "sim", "report", dir)
	if status != 0 || !strings.Contains(out, strings.SplitN(rep, "\n", 2)[1]) {
		t.Errorf("report (status %d, %s):\n%s\nwant the table of the run:\n%s", status, errOut, rep, out)
	}
}

func TestSimRejectsBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"sim", "fct", "--scheme", "reno"},
		{"sim", "fct", "--load", "1.5"},
		{"sim", "fct", "--flows", "0"},
		{"sim", "fct", "--workload", "/nonexistent.csv"},
		{"sim", "fct", "--racks", "0"},
		{"sim", "fct", "--edge-rate", "10GB"},
		{"sim", "run", "fig10"},
		{"sim", "run", "fig9", "--workers", "0"},
		{"sim", "typo"},
		{"sim", "report"},
	} {
		_, errOut, status := run(t, args...)
		if status != exitUsage || errOut == "" {
			t.Errorf("%v: status %d, stderr %q; want 2 and a message", args, status, errOut)
		}
	}
}
