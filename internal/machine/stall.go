package machine

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"time"
)

// Stall is a time one CPU ran none of the guest's threads: the monitor's tick was due at FromNS
// and ran at ToNS (wall clock, ns, the clock of the kernel's packet stamps). The CPU may have
// stopped earlier, up to a tick before FromNS; the stall counts only what was measured.
type Stall struct {
	CPU    int   `json:"cpu"`
	FromNS int64 `json:"from_ns"`
	ToNS   int64 `json:"to_ns"`
}

// Timeline is the union of stalls over all CPUs, in order: the times at least one CPU stood
// still. A packet's softirqs run on one CPU, so a stall of either of a VM's CPUs can hold it.
type Timeline struct {
	spans [][2]int64 // sorted, disjoint
}

// NewTimeline merges stalls into their union.
func NewTimeline(stalls []Stall) Timeline {
	sorted := append([]Stall(nil), stalls...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].FromNS < sorted[j].FromNS })
	var t Timeline
	for _, s := range sorted {
		if n := len(t.spans); n > 0 && s.FromNS <= t.spans[n-1][1] {
			t.spans[n-1][1] = max(t.spans[n-1][1], s.ToNS)
			continue
		}
		t.spans = append(t.spans, [2]int64{s.FromNS, s.ToNS})
	}
	return t
}

// Within is how long the machine was measured stalled between from and to (ns).
func (t Timeline) Within(from, to int64) int64 {
	// The first span that ends after from; spans are disjoint, so their ends are sorted too.
	i := sort.Search(len(t.spans), func(i int) bool { return t.spans[i][1] > from })
	var d int64
	for ; i < len(t.spans) && t.spans[i][0] < to; i++ {
		d += min(to, t.spans[i][1]) - max(from, t.spans[i][0])
	}
	return d
}

// Summary describes stalls for a person: how many, their total and the longest.
type Summary struct {
	Count   int     `json:"count"`
	TotalMS float64 `json:"total_ms"`
	WorstMS float64 `json:"worst_ms"`
}

// Summarize counts stalls as the union does: overlapping stalls of two CPUs are one.
func Summarize(stalls []Stall) Summary {
	var s Summary
	for _, span := range NewTimeline(stalls).spans {
		d := float64(span[1]-span[0]) / float64(time.Millisecond)
		s.Count++
		s.TotalMS += d
		s.WorstMS = max(s.WorstMS, d)
	}
	return s
}

var csvHeader = []string{"cpu", "from_ns", "to_ns"}

// WriteCSV writes stalls to path, one per line under a header.
func WriteCSV(path string, stalls []Stall) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return WriteCSVTo(f, stalls)
}

// WriteCSVTo writes the stalls as WriteCSV does to f, an open file, and closes it.
func WriteCSVTo(f *os.File, stalls []Stall) error {
	w := csv.NewWriter(f)
	_ = w.Write(csvHeader)
	for _, s := range stalls {
		_ = w.Write([]string{strconv.Itoa(s.CPU), strconv.FormatInt(s.FromNS, 10), strconv.FormatInt(s.ToNS, 10)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", f.Name(), err)
	}
	return f.Close()
}

// ReadCSV reads what WriteCSV wrote.
func ReadCSV(path string) ([]Stall, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = len(csvHeader)
	if _, err := r.Read(); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	var stalls []Stall
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return stalls, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		cpu, e1 := strconv.Atoi(rec[0])
		from, e2 := strconv.ParseInt(rec[1], 10, 64)
		to, e3 := strconv.ParseInt(rec[2], 10, 64)
		if e1 != nil || e2 != nil || e3 != nil || to < from {
			return nil, fmt.Errorf("%s line %d: want a CPU and two times in ns, the second not before the first: %v", path, line, rec)
		}
		stalls = append(stalls, Stall{CPU: cpu, FromNS: from, ToNS: to})
	}
}
