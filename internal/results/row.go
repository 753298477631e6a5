package results

// Row is one sample of samples.csv, the raw data every statistic and figure is drawn from.
type Row struct {
	Arm       string  // the arm (condition) of the run: idle, switch-queue, qjump, f7=1, ...
	Tool      string  // what measured it: probe, ping, memcached, ...
	Metric    string  // what it measured: rtt, oneway, network, request, ...
	Sender    int     // sending host (1-based)
	Seq       uint64  // sequence number within the arm and sender
	SendNS    int64   // send time, CLOCK_REALTIME ns (0 where the tool gives none, e.g. ping)
	LatencyNS int64   // the sample; meaningless when Lost
	Lost      bool    // no answer (probe timeout, ping loss, memcached error)
	Param     float64 // the swept parameter (fan-in: f7), 0 elsewhere
}

// Key names one series: the rows of one arm measured by one tool as one metric.
type Key struct {
	Arm, Tool, Metric string
}

// Key is the series row belongs to.
func (r Row) Key() Key { return Key{Arm: r.Arm, Tool: r.Tool, Metric: r.Metric} }

// Where picks the rows of series k, in order.
func Where(rows []Row, k Key) []Row {
	var out []Row
	for _, r := range rows {
		if r.Key() == k {
			out = append(out, r)
		}
	}
	return out
}
