package experiment

import (
	"encoding/json"
	"strings"
	"testing"
)

// A results.json from before runs recorded the machine and the hosts' NIC (docs/results/fan-in)
// is written back without them, not with empty values that read as recorded, and its summary
// says the machine was not recorded.
func TestOldResultsKeepWhatTheyDidNotRecord(t *testing.T) {
	old := `{"experiment":"fan-in","testbed":{"prefix":"qjtb","hosts":5,"rate_bps":100000000,"buffer_packets":100,"host_queue_packets":1000,"classify":"dscp"}}`
	var r Results
	if err := json.Unmarshal([]byte(old), &r); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(&r)
	if err != nil || strings.Contains(string(b), `"machine"`) || strings.Contains(string(b), `"host_nic"`) {
		t.Errorf("written back as %s, %v; want neither machine nor host_nic", b, err)
	}
	if m := r.Machine.Method(); !strings.Contains(m, "not recorded") {
		t.Errorf("method of a run that recorded no machine: %q", m)
	}
}
