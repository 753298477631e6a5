package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An unfinished flow's fct_us and normalised are empty in flows.csv, never 0, and read back as
// unfinished; so does the 0.000 of files written before.
func TestFlowsCSVUnfinishedFlowIsEmpty(t *testing.T) {
	r := &FCTResult{Scheme: TCP, Flows: []FlowRow{
		{ID: 0, Src: 1, Dst: 2, Size: 1000, StartUs: 1.5, Done: true, FCTUs: 20, IdealUs: 10, Level: 0},
		{ID: 1, Src: 3, Dst: 4, Size: 2000, StartUs: 2.5, IdealUs: 12, Timeouts: 3},
	}}
	var b bytes.Buffer
	if err := WriteFlowsCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || lines[1] != "0,1,2,1000,1.500,20.000,10.000,2.000,tcp,0,0" || lines[2] != "1,3,4,2000,2.500,,12.000,,tcp,0,3" {
		t.Fatalf("flows.csv:\n%s", b.String())
	}
	dir := t.TempDir()
	old := strings.Replace(b.String(), "2.500,,12.000", "2.500,0.000,12.000", 1)
	for name, text := range map[string]string{"new.csv": b.String(), "old.csv": old} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := ReadFlowsFile(path, TCP)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || rows[0] != r.Flows[0] || rows[1] != r.Flows[1] {
			t.Errorf("%s read back as %+v, want %+v", name, rows, r.Flows)
		}
	}
}

// A row that no run writes is refused, naming its line and column: an ideal FCT of 0 made every
// statistic infinite and the report failed naming results.json; a negative size and another
// scheme's row passed (review, helper-71).
func TestFlowsCSVRefusesRowsNoRunWrites(t *testing.T) {
	good := "0,1,2,1000,1.500,20.000,10.000,2.000,tcp,0,0"
	for _, c := range []struct{ row, says string }{
		{"0,1,2,1000,1.500,20.000,0.000,2.000,tcp,0,0", "ideal_us 0.000"},
		{"0,1,2,-5,1.500,20.000,10.000,2.000,tcp,0,0", "size_bytes -5"},
		{"0,1,2,1000,1.500,20.000,10.000,2.000,dctcp,0,0", `scheme "dctcp"`},
		{"0,1,2,1000,1.500,20.000,10.000,2.000,tcp,8,0", "level 8"},
		{"0,1,2,1000,1.500,-3.000,10.000,2.000,tcp,0,0", "fct_us -3.000"},
		{"0,1,2,1000,1.500,NaN,10.000,2.000,tcp,0,0", "fct_us NaN"},
		{"0,1,2,1000,-1.000,20.000,10.000,2.000,tcp,0,0", "start_us -1.000"},
		{"0,1,2,1000,1.500,20.000,10.000,2.000,tcp,0,-1", "timeouts -1"},
	} {
		path := filepath.Join(t.TempDir(), "flows.csv")
		text := strings.Join(flowsHeader, ",") + "\n" + good + "\n" + c.row + "\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFlowsFile(path, TCP)
		if err == nil || !strings.Contains(err.Error(), "line 3: "+c.says) {
			t.Errorf("row %q: %v; want it refused at line 3 saying %q", c.row, err, c.says)
		}
	}
}
