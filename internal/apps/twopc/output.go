package twopc

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
)

// Summary is a coordinator run as the `qjump 2pc coordinator` verb prints it (JSON, documented in
// docs/testbed.md): the experiments read it back with ReadSummary.
type Summary struct {
	Transport       Transport     `json:"transport"`
	Servers         int           `json:"servers"`
	ReplyWaitNS     int64         `json:"reply_wait_ns"`
	StartNS         int64         `json:"start_ns"`
	EndNS           int64         `json:"end_ns"`
	Transactions    int           `json:"transactions"`
	Committed       int           `json:"committed"`
	Aborted         int           `json:"aborted"`
	CommittedPerSec float64       `json:"committed_per_sec"`
	Retransmissions int           `json:"retransmissions"`
	SendErrors      int           `json:"send_errors"`
	LateReplies     int           `json:"late_replies"`
	Failures        []FailureJSON `json:"failures"`
}

// FailureJSON is a Failure in the summary.
type FailureJSON struct {
	Server     int    `json:"server"`
	Addr       string `json:"addr"`
	Txn        uint64 `json:"txn"`
	Phase      string `json:"phase"`
	SentNS     int64  `json:"sent_ns"`
	DetectedNS int64  `json:"detected_ns"`
	DetectNS   int64  `json:"detect_ns"`
	Cause      string `json:"cause"`
}

// Summary is the report without its per-transaction rows.
func (r Report) Summary() Summary {
	s := Summary{Transport: r.Transport, Servers: r.Servers, ReplyWaitNS: r.ReplyWait.Nanoseconds(),
		StartNS: r.StartNS, EndNS: r.EndNS, Transactions: len(r.Txns), Committed: r.Committed, Aborted: r.Aborted,
		CommittedPerSec: r.CommittedPerSec(), Retransmissions: r.Retransmissions, SendErrors: r.SendErrors,
		LateReplies: r.LateReplies, Failures: []FailureJSON{}}
	for _, f := range r.Failures {
		s.Failures = append(s.Failures, FailureJSON{Server: f.Server, Addr: f.Addr, Txn: f.Txn, Phase: f.Phase,
			SentNS: f.SentNS, DetectedNS: f.DetectedNS, DetectNS: f.DetectNS(), Cause: f.Cause})
	}
	return s
}

// WriteSummary writes the summary as one indented JSON object.
func WriteSummary(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Summary())
}

// ReadSummary reads what WriteSummary wrote.
func ReadSummary(r io.Reader) (Summary, error) {
	var s Summary
	err := json.NewDecoder(r).Decode(&s)
	return s, err
}

// TxnCSVHeader is the header of the per-transaction file.
var TxnCSVHeader = []string{"txn", "start_ns", "decision_ns", "end_ns", "outcome", "servers"}

// WriteTxnCSV writes one row per transaction.
func WriteTxnCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(TxnCSVHeader)
	for _, t := range r.Txns {
		_ = cw.Write([]string{strconv.FormatUint(t.ID, 10), i64(t.StartNS), i64(t.DecisionNS), i64(t.EndNS),
			t.Outcome, strconv.Itoa(t.Servers)})
	}
	cw.Flush()
	return cw.Error()
}

// ServerJSON is a server's report as `qjump 2pc server` prints it.
type ServerJSON struct {
	Transport Transport `json:"transport"`
	Prepared  int       `json:"prepared"`
	VotedNo   int       `json:"voted_no"`
	Committed int       `json:"committed"`
	Aborted   int       `json:"aborted"`
	Unknown   int       `json:"unknown"`
}

// WriteServerJSON writes a server's report as one JSON object.
func WriteServerJSON(w io.Writer, r ServerReport) error {
	return json.NewEncoder(w).Encode(ServerJSON(r))
}

func i64(v int64) string { return strconv.FormatInt(v, 10) }
