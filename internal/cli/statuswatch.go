package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

// `qjump status --watch`: what each level sends, and what is dropped, demoted and held, per second
// now, rather than the totals since up. The counters are read every --interval and the rates are
// the differences over the time between two readings, so nothing is sampled or estimated.

// Bounds of --interval: below 10 ms the time between readings is mostly the reading itself.
// watchIntervals says them as people write them (time.Duration prints an hour as 1h0m0s).
const (
	minWatchInterval = 10 * time.Millisecond
	maxWatchInterval = time.Hour
	watchIntervals   = "10ms to 1h"
)

// validateWatch checks the watch flags: --interval and --count only with --watch, and in range.
func validateWatch(opts *statusOptions, intervalSet, countSet bool) error {
	switch {
	case !opts.watch && (intervalSet || countSet):
		return usageErrorf("--interval and --count need --watch (status without it prints the totals once)")
	case opts.interval < minWatchInterval || opts.interval > maxWatchInterval:
		return usageErrorf("invalid --interval %s: need %s", opts.interval, watchIntervals)
	case opts.count < 0:
		return usageErrorf("invalid --count %d: need 0 (until Ctrl-C) or more updates", opts.count)
	}
	return nil
}

// levelRates is what one level did per second between two readings.
type levelRates struct {
	SentBitsPerSecond       float64 `json:"sent_bps"` // wire bits, what the budget is charged
	SentPacketsPerSecond    float64 `json:"sent_pps"`
	DroppedPacketsPerSecond float64 `json:"dropped_pps"` // every reason (status's second table)
	DemotedPacketsPerSecond float64 `json:"demoted_pps"`
	ShapedPacketsPerSecond  float64 `json:"shaped_pps"`
}

// ratesOf is what the counters did from before to after, dt apart; false when a counter went
// down (QJump went down and up again between the readings, so its counters started over).
func ratesOf(before, after dataplane.Counters, dt time.Duration) (levelRates, bool) {
	var r levelRates
	s := dt.Seconds()
	ok := true
	per := func(b, a uint64) float64 {
		if a < b {
			ok = false
			return 0
		}
		return float64(a-b) / s
	}
	r.SentBitsPerSecond = 8 * per(before.SentBytes, after.SentBytes)
	r.SentPacketsPerSecond = per(before.SentPackets, after.SentPackets)
	r.DroppedPacketsPerSecond = per(before.Dropped(), after.Dropped())
	r.DemotedPacketsPerSecond = per(before.DemotedPackets, after.DemotedPackets)
	r.ShapedPacketsPerSecond = per(before.ShapedPackets, after.ShapedPackets)
	return r, ok
}

// watchDevice is one device's rates over one interval.
type watchDevice struct {
	Device     string `json:"device"`
	Mode       string `json:"mode"`
	Generation uint64 `json:"generation"`
	EpochNs    int64  `json:"epoch_ns"`
	// Since says why there are no rates: "first reading" (the device came up since the last
	// one) or "counters started over" (it went down and up); empty when there are.
	Since  string       `json:"since,omitempty"`
	Levels []watchLevel `json:"levels"`
}

type watchLevel struct {
	Level      int      `json:"level"`
	Configured bool     `json:"configured"`
	LimitBps   *float64 `json:"limit_bps"` // f·P·8/E capped at R; null for a level not configured
	levelRates
}

// watchFrame is one update: every device's rates over the interval that ended at Time.
type watchFrame struct {
	Time      time.Time     `json:"time"`
	IntervalS float64       `json:"interval_s"`
	Devices   []watchDevice `json:"devices"`
}

// newWatchFrame compares two readings dt apart, device by device (a device in after only has no
// rates yet; one in before only is left out: it is no longer up).
func newWatchFrame(before, after []dataplane.Status, dt time.Duration, at time.Time) watchFrame {
	f := watchFrame{Time: at, IntervalS: dt.Seconds(), Devices: []watchDevice{}}
	prev := map[string]dataplane.Status{}
	for _, st := range before {
		prev[st.Device] = st
	}
	for _, st := range after {
		m := st.Config.Model
		d := watchDevice{Device: st.Device, Mode: string(st.Config.Mode), Generation: st.Generation,
			EpochNs: m.Epoch().Nanoseconds(), Levels: []watchLevel{}}
		old, seen := prev[st.Device]
		if !seen {
			d.Since = "first reading"
		}
		var levels [model.NumLevels]levelRates
		for l := range levels {
			r, ok := ratesOf(old.Levels[l], st.Levels[l], dt)
			if seen && !ok {
				d.Since = "counters started over"
			}
			levels[l] = r
		}
		for l := model.NumLevels - 1; l >= 0; l-- {
			f, configured := m.Factors[model.Level(l)]
			wl := watchLevel{Level: l, Configured: configured}
			if configured {
				wl.LimitBps = ptr(float64(m.LevelRate(f)))
			}
			if d.Since == "" {
				wl.levelRates = levels[l]
			}
			// A level that is not configured carries nothing of its own (its carrier counts
			// it): shown only if something was counted there.
			if configured || wl.levelRates != (levelRates{}) {
				d.Levels = append(d.Levels, wl)
			}
		}
		f.Devices = append(f.Devices, d)
	}
	return f
}

// printWatchFrame prints f as one table per device.
func printWatchFrame(w io.Writer, f watchFrame) error {
	if len(f.Devices) == 0 {
		fmt.Fprintf(w, "%s: qjump is not up on any interface in this network namespace\n", f.Time.Format("15:04:05.000"))
		return nil
	}
	for i, d := range f.Devices {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s at %s: %s mode, E=%s, generation %d; per second over the last %s\n", d.Device,
			f.Time.Format("15:04:05.000"), d.Mode, model.FormatDuration(time.Duration(d.EpochNs)), d.Generation,
			model.FormatDuration(time.Duration(f.IntervalS*1e9).Round(time.Millisecond)))
		if d.Since != "" {
			fmt.Fprintf(w, "no rates yet: %s\n", d.Since)
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "LEVEL\tLIMIT\tSENT\tPACKETS\tDROPPED\tDEMOTED\tSHAPED\t")
		for _, l := range d.Levels {
			limit := "-"
			if l.LimitBps != nil {
				limit = model.Rate(*l.LimitBps).String()
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t\n", l.Level, limit, model.Rate(l.SentBitsPerSecond),
				l.SentPacketsPerSecond, l.DroppedPacketsPerSecond, l.DemotedPacketsPerSecond, l.ShapedPacketsPerSecond)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// clearScreen moves a terminal's cursor home and clears it, so that each frame replaces the last.
const clearScreen = "\x1b[H\x1b[2J"

// watchStatus reads the counters every opts.interval and prints each interval's rates, until
// opts.count updates (0: no limit) or ctx ends (Ctrl-C, which ends the watch normally). On a
// terminal each update replaces the last; otherwise (a pipe, a file) they follow one another, and
// with --json each is one line of JSON.
func watchStatus(ctx context.Context, opts *statusOptions, w io.Writer, terminal bool) error {
	before, err := readStatus(opts.dev)
	if err != nil {
		return err
	}
	last := time.Now()
	tick := time.NewTicker(opts.interval)
	defer tick.Stop()
	for n := 0; opts.count == 0 || n < opts.count; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		after, err := readStatus(opts.dev)
		if err != nil {
			return err
		}
		now := time.Now()
		f := newWatchFrame(before, after, now.Sub(last), now)
		before, last = after, now
		if err := emitWatchFrame(w, f, opts.json, terminal); err != nil {
			return err
		}
	}
	return nil
}

// emitWatchFrame writes one update in the form the watch was asked for.
func emitWatchFrame(w io.Writer, f watchFrame, asJSON, terminal bool) error {
	switch {
	case asJSON:
		return json.NewEncoder(w).Encode(f)
	case terminal:
		fmt.Fprint(w, clearScreen)
	default:
		fmt.Fprintln(w, "---")
	}
	return printWatchFrame(w, f)
}

// isTerminal says whether w is a terminal, where a watch redraws in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
