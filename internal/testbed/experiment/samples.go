package experiment

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Row is one latency sample of samples.csv, the raw data every figure is drawn from.
type Row struct {
	Arm       string  // which arm of the experiment (idle, switch-queue, qjump, f7=1, ...)
	Tool      string  // probe, ping or memcached
	Metric    string  // rtt, oneway or request
	Sender    int     // sending host (1-based)
	Seq       uint64  // sequence number within the arm and sender
	SendNS    int64   // send time, CLOCK_REALTIME ns (0 where the tool gives none, e.g. ping)
	LatencyNS int64   // the sample; meaningless when Lost
	Lost      bool    // no answer (probe timeout, ping loss, memcached error)
	Param     float64 // the swept parameter (fan-in: f7), 0 elsewhere
}

var rowHeader = []string{"arm", "tool", "metric", "sender", "seq", "send_ns", "latency_ns", "lost", "param"}

func writeRows(path string, rows []Row) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create samples: %w", err)
	}
	w := csv.NewWriter(f)
	_ = w.Write(rowHeader)
	for _, r := range rows {
		_ = w.Write([]string{r.Arm, r.Tool, r.Metric, strconv.Itoa(r.Sender), strconv.FormatUint(r.Seq, 10),
			strconv.FormatInt(r.SendNS, 10), strconv.FormatInt(r.LatencyNS, 10), strconv.FormatBool(r.Lost),
			strconv.FormatFloat(r.Param, 'g', -1, 64)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return fmt.Errorf("write samples: %w", err)
	}
	return f.Close()
}

func readRows(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open samples: %w", err)
	}
	defer f.Close()
	return parseRows(f)
}

func parseRows(r io.Reader) ([]Row, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read samples: %w", err)
	}
	var rows []Row
	for i, rec := range recs {
		if i == 0 {
			continue
		}
		if len(rec) != len(rowHeader) {
			return nil, fmt.Errorf("read samples: line %d has %d fields, want %d", i+1, len(rec), len(rowHeader))
		}
		var row Row
		var errs [6]error
		row.Arm, row.Tool, row.Metric = rec[0], rec[1], rec[2]
		row.Sender, errs[0] = strconv.Atoi(rec[3])
		row.Seq, errs[1] = strconv.ParseUint(rec[4], 10, 64)
		row.SendNS, errs[2] = strconv.ParseInt(rec[5], 10, 64)
		row.LatencyNS, errs[3] = strconv.ParseInt(rec[6], 10, 64)
		row.Lost, errs[4] = strconv.ParseBool(rec[7])
		row.Param, errs[5] = strconv.ParseFloat(rec[8], 64)
		for _, e := range errs {
			if e != nil {
				return nil, fmt.Errorf("read samples: line %d: %w", i+1, e)
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}
