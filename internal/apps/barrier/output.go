package barrier

import (
	"encoding/csv"
	"io"
	"strconv"
)

// CSVHeader is the header of a participant's round file (documented in docs/testbed.md).
var CSVHeader = []string{"round", "start_ns", "latency_ns"}

// WriteCSV writes one row per completed round.
func WriteCSV(w io.Writer, rounds []Round) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(CSVHeader)
	for _, r := range rounds {
		_ = cw.Write([]string{strconv.FormatUint(r.N, 10), strconv.FormatInt(r.StartNS, 10), strconv.FormatInt(r.LatencyNS, 10)})
	}
	cw.Flush()
	return cw.Error()
}
