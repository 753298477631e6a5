package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

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
		return usageErrorf("invalid --interval %q: need %s", opts.typed["interval"], watchIntervals)
	case opts.count < 0:
		return usageErrorf("invalid --count %d: need 0 (until Ctrl-C) or more updates", opts.count)
	}
	return nil
}

// LevelRates is what one level did per second between two readings (exported so that a frame
// decodes: encoding/json cannot fill an embedded pointer to an unexported type).
type LevelRates struct {
	SentBitsPerSecond       float64 `json:"sent_bps"` // wire bits, what the budget is charged
	SentPacketsPerSecond    float64 `json:"sent_pps"`
	DroppedPacketsPerSecond float64 `json:"dropped_pps"` // every reason (status's second table)
	DemotedPacketsPerSecond float64 `json:"demoted_pps"`
	ShapedPacketsPerSecond  float64 `json:"shaped_pps"`
}

// ratesOf is what the counters did from before to after, dt apart; false when a counter went
// down (QJump went down and up again between the readings, so its counters started over).
func ratesOf(before, after dataplane.Counters, dt time.Duration) (LevelRates, bool) {
	var r LevelRates
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

// Why a device of a watch frame has no rates (watchDevice.Since).
const (
	sinceFirst   = "first reading"         // it came up since the previous reading
	sinceRestart = "counters started over" // it went down and up: a counter or the generation went down
	sinceGone    = "no longer up"
)

// watchDevice is one device's rates over one interval.
type watchDevice struct {
	Device     string       `json:"device"`
	Attached   bool         `json:"attached"`    // false: QJump's state without its program (status says why)
	EgressTree bool         `json:"egress_tree"` // false: its egress tree deleted or replaced by hand (status says what to do)
	Mode       string       `json:"mode"`
	Generation uint64       `json:"generation"`
	EpochNs    int64        `json:"epoch_ns"`
	Since      string       `json:"since,omitempty"` // why there are no rates (sinceFirst...); empty when there are
	Levels     []watchLevel `json:"levels"`
}

type watchLevel struct {
	Level      int      `json:"level"`
	Configured bool     `json:"configured"`
	RateBps    *float64 `json:"rate_bps"` // the level's rate, its limit, as status --json; null if not configured
	// TargetRateBps is the rate its factor was solved from, as status --json; null if none.
	TargetRateBps *float64 `json:"target_rate_bps"`
	*LevelRates            // absent when the device has no rates (Since)
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
	up := map[string]bool{}
	for _, st := range after {
		up[st.Device] = true
		f.Devices = append(f.Devices, watchOf(prev, st, dt))
	}
	for _, st := range before {
		if !up[st.Device] {
			f.Devices = append(f.Devices, watchDevice{Device: st.Device, Since: sinceGone, Levels: []watchLevel{}})
		}
	}
	return f
}

// watchOf is st's rates since its reading in prev, if it has one there.
func watchOf(prev map[string]dataplane.Status, st dataplane.Status, dt time.Duration) watchDevice {
	m := st.Config.Model
	d := watchDevice{Device: st.Device, Attached: st.Attached, EgressTree: st.TreeOn(), Mode: string(st.Config.Mode), Generation: st.Generation,
		EpochNs: m.Epoch().Nanoseconds(), Levels: []watchLevel{}}
	old, seen := prev[st.Device]
	var levels [model.NumLevels]LevelRates
	counted := true // no counter went down
	for l := range levels {
		var ok bool
		levels[l], ok = ratesOf(old.Levels[l], st.Levels[l], dt)
		counted = counted && ok
	}
	switch {
	case !seen:
		d.Since = sinceFirst
	case !counted || st.Generation < old.Generation:
		d.Since = sinceRestart
	}
	for l := model.NumLevels - 1; l >= 0; l-- {
		f, configured := m.Factors[model.Level(l)]
		wl := watchLevel{Level: l, Configured: configured, TargetRateBps: targetRate(st.Config, model.Level(l))}
		if configured {
			wl.RateBps = ptr(float64(m.LevelRate(f)))
		}
		if d.Since == "" {
			wl.LevelRates = &levels[l]
		}
		// A level that is not configured carries nothing of its own (its carrier counts it):
		// shown only if something was counted there.
		if configured || (wl.LevelRates != nil && *wl.LevelRates != (LevelRates{})) {
			d.Levels = append(d.Levels, wl)
		}
	}
	return d
}

// printWatchFrame prints f as one table per device; dev is the device watched, if one was.
func printWatchFrame(w io.Writer, f watchFrame, dev string) error {
	if len(f.Devices) == 0 {
		where := "any interface in this network namespace"
		if dev != "" {
			where = dev
		}
		fmt.Fprintf(w, "%s: qjump is not up on %s\n", f.Time.Format("15:04:05.000"), where)
		return nil
	}
	for i, d := range f.Devices {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if d.Since == sinceGone {
			fmt.Fprintf(w, "%s at %s: qjump is no longer up\n", d.Device, f.Time.Format("15:04:05.000"))
			continue
		}
		fmt.Fprintf(w, "%s at %s: %s mode, E=%s, generation %d; per second over the last %s\n", d.Device,
			f.Time.Format("15:04:05.000"), d.Mode, model.DurationText(time.Duration(d.EpochNs)), d.Generation,
			model.DurationText(time.Duration(f.IntervalS*1e9).Round(time.Millisecond)))
		if !d.Attached {
			fmt.Fprintf(w, "NOT ATTACHED: its traffic leaves unlimited and unmarked (qjump status says more)\n")
		}
		if !d.EgressTree {
			fmt.Fprintf(w, "EGRESS TREE GONE: its levels leave without strict priority and the cap at R (qjump status says more)\n")
		}
		if d.Since != "" {
			fmt.Fprintf(w, "no rates yet: %s\n", d.Since)
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "LEVEL\tLIMIT\tSENT\tPACKETS\tDROPPED\tDEMOTED\tSHAPED\t")
		for _, l := range d.Levels {
			limit := "-"
			if l.RateBps != nil {
				limit = model.Rate(*l.RateBps).String()
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.Level, limit, model.Rate(l.SentBitsPerSecond),
				perSecond(l.SentPacketsPerSecond), perSecond(l.DroppedPacketsPerSecond),
				perSecond(l.DemotedPacketsPerSecond), perSecond(l.ShapedPacketsPerSecond))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// perSecond is a count per second as people read it: whole above 10, else to two significant
// digits, so that 3 drops in 10 s read 0.3, not 0.
func perSecond(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f", x)
	}
	return strconv.FormatFloat(x, 'g', 2, 64)
}

// clearScreen moves a terminal's cursor home and clears it, so that each frame replaces the last.
const clearScreen = "\x1b[H\x1b[2J"

// watchStatus reads the counters every opts.interval and prints each interval's rates, until
// opts.count updates (0: no limit) or ctx ends (Ctrl-C, which ends the watch normally). On a
// terminal each update replaces the last; otherwise (a pipe, a file) they follow one another, and
// with --json each is one line of JSON.
func watchStatus(ctx context.Context, opts *statusOptions, w io.Writer, terminal bool) error {
	before, err := readStatus(opts.dev) // a --dev that is not up, or no interface, at the start is an error
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
		after, err := readWatched(opts.dev)
		if err != nil {
			return err
		}
		now := time.Now()
		f := newWatchFrame(before, after, now.Sub(last), now)
		before, last = after, now
		if err := emitWatchFrame(w, f, opts, terminal); err != nil {
			return err
		}
	}
	return nil
}

// readWatched is readStatus during a watch, where a --dev that went down (and away: a gone
// interface's state removed) is a device no longer up, shown as such, not the end of the watch.
func readWatched(dev string) ([]dataplane.Status, error) {
	all, err := readStatus(dev)
	if errors.Is(err, dataplane.ErrNotUp) || errors.Is(err, dataplane.ErrNoDevice) {
		return nil, nil
	}
	return all, err
}

// emitWatchFrame writes one update in the form the watch was asked for.
func emitWatchFrame(w io.Writer, f watchFrame, opts *statusOptions, terminal bool) error {
	switch {
	case opts.json:
		return json.NewEncoder(w).Encode(f)
	case terminal:
		fmt.Fprint(w, clearScreen)
	default:
		fmt.Fprintln(w, "---")
	}
	return printWatchFrame(w, f, opts.dev)
}

// isTerminal says whether w is a terminal, where a watch redraws in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
