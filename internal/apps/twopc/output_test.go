package twopc

import (
	"bytes"
	"testing"
)

// The summary the coordinator prints reads back as it was written.
func TestSummaryRoundTrip(t *testing.T) {
	r := Report{Transport: QJump, Servers: 7, StartNS: 1e9, EndNS: 3e9, Committed: 10, Aborted: 1,
		Failures: []Failure{{Server: 3, Addr: "h:1", Txn: 4, Phase: "prepare", SentNS: 5, DetectedNS: 25, Cause: "x"}}}
	var b bytes.Buffer
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSummary(&b)
	if err != nil {
		t.Fatal(err)
	}
	if s.CommittedPerSec != 5 || s.Committed != 10 || len(s.Failures) != 1 || s.Failures[0].DetectNS != 20 {
		t.Errorf("read back %+v", s)
	}
}
