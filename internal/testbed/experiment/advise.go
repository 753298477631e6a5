package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/publish"
)

// The paper chooses memcached's factor by reading Fig. 10 ("no principled way" otherwise, §6.5).
// Advise does that on the testbed: it runs memcached-sweep, takes the smallest factor whose
// figure with bulk traffic (what QJump is for) meets the target, and runs that factor again to
// confirm it; if the rerun misses, it tries the next larger factor of the sweep.

// AdviseTarget is what the program needs: a p99 request latency, a throughput, or both.
type AdviseTarget struct {
	P99        time.Duration
	Throughput float64 // requests per second
}

// ErrNoTarget is a target that asks for nothing: neither a p99 latency nor a throughput.
var ErrNoTarget = errors.New("no target: need a p99 latency, a throughput, or both")

// Validate refuses a target that asks for nothing (ErrNoTarget) or something negative.
func (t AdviseTarget) Validate() error {
	switch {
	case t.P99 < 0:
		return &model.FieldError{Field: "p99", Value: t.P99.String(), Allowed: "a latency greater than 0"}
	case t.Throughput < 0:
		return &model.FieldError{Field: "throughput", Value: fmt.Sprint(t.Throughput), Allowed: "requests per second, greater than 0"}
	case t.P99 == 0 && t.Throughput == 0:
		return ErrNoTarget
	}
	return nil
}

func (t AdviseTarget) String() string {
	var parts []string
	if t.P99 > 0 {
		parts = append(parts, "p99 ≤ "+model.DurationText(t.P99))
	}
	if t.Throughput > 0 {
		parts = append(parts, fmt.Sprintf("throughput ≥ %.0f requests/s", t.Throughput))
	}
	return strings.Join(parts, " and ")
}

// MaxThroughput is the most requests a second memcached can serve over a link of rate r: the
// link carries r/8 bytes a second and a request costs the server's replies kvRequestWire of them.
// No factor gives more, line rate included, so a target above it can never be met.
func MaxThroughput(r model.Rate) float64 { return float64(r) / 8 / kvRequestWire }

// AdviseRun is a target and the options of Advise's sweep that CheckAdvise accepted: Advise runs
// it without checking them again.
type AdviseRun struct {
	o       Options
	t       AdviseTarget
	checked bool // false in the zero value, which Advise refuses
}

// CheckAdvise validates a target and the options of Advise's sweep before anything is built:
// the input first, a throughput the testbed's link cannot carry among it, then what the machine
// must have (Check's).
func CheckAdvise(o Options, t AdviseTarget) (AdviseRun, error) {
	if err := t.Validate(); err != nil {
		return AdviseRun{}, err
	}
	const sweep = "memcached-sweep"
	if err := checkInput(sweep, o); err != nil {
		return AdviseRun{}, err
	}
	r := withDefaults(experiments[sweep], o.Testbed).Rate
	if most := MaxThroughput(r); t.Throughput > most {
		return AdviseRun{}, &model.FieldError{Field: "throughput", Value: fmt.Sprint(t.Throughput), Allowed: fmt.Sprintf(
			"need at most %.0f requests per second: at R = %s memcached's replies (%.0fB on the wire a request, 90%% GETs of 1kB values) fill the link there; --rate sets R",
			math.Floor(most), r, kvRequestWire)}
	}
	if err := checkHost(o); err != nil {
		return AdviseRun{}, err
	}
	return AdviseRun{o, t, true}, nil
}

// InDir is the advise writing into dir rather than the options' OutDir (CheckedRun.InDir).
func (r AdviseRun) InDir(dir string) AdviseRun {
	r.o.OutDir = dir
	return r
}

// AdvicePoint is one factor's measurement with bulk traffic, and the model's figures at it.
type AdvicePoint struct {
	Factor       float64  `json:"factor"`
	LevelRateBPS float64  `json:"level_rate_bps"`    // T5 = f·P·8/E
	CapPerSec    float64  `json:"model_cap_per_sec"` // T5 over the bytes a request costs
	BoundUS      *float64 `json:"bound_us"`          // D5; nil (null) when not Guaranteed
	Guaranteed   bool     `json:"bound_guaranteed"`
	PerSec       float64  `json:"per_sec"`
	P50US        float64  `json:"p50_us"`
	P99US        float64  `json:"p99_us"`
	Met          bool     `json:"met"`
}

// Advice is what `qjump advise` prints.
type Advice struct {
	Program string        `json:"program"`
	Target  string        `json:"target"`
	Level   int           `json:"level"`
	Sweep   string        `json:"sweep_dir"`
	Points  []AdvicePoint `json:"points"`
	Chosen  *AdvicePoint  `json:"chosen"`  // the factor advised: the last one tried
	Confirm *AdvicePoint  `json:"confirm"` // the same factor, run again
	// Missed are the second runs of smaller factors that met the target in the sweep and missed
	// it when run again (a target near a factor's capacity, met or not by noise), in the order
	// they were tried.
	Missed []AdvicePoint `json:"missed_reruns"`
	Reruns []string      `json:"rerun_dirs"`
}

// ErrNoFactor is a target no factor of the sweep met, up to line rate.
var ErrNoFactor = errors.New("no factor meets the target")

// Advise runs the sweep into the options' OutDir/sweep, picks the factor and confirms it, saying
// what it does to progress. Its runs are staged together and published together (publishAdvice),
// replacing an earlier advise's in OutDir: once the advice is made, or a run failed after the
// sweep (the runs made are the advice so far), or a run failed with faults (its files are kept
// for the cause to be found, as run publishes such a run). A stopped advise, or one whose sweep
// failed otherwise, leaves OutDir as it was; one whose run kept its files (keep) is kept whole
// beside it, as unpublished-TIME, and the advice and the error say where.
func Advise(ctx context.Context, r AdviseRun, progress io.Writer) (*Advice, error) {
	if !r.checked {
		return nil, errors.New("advise: the run was not checked (CheckAdvise makes it)")
	}
	st, err := publish.Stage(r.o.OutDir)
	if err != nil {
		return nil, err
	}
	defer st.Discard() // nothing once published or kept
	a, err := advise(ctx, r, progress, st.Dir())
	if _, kept := publish.Kept(err); kept { // before a stop: kept files are kept, stopped or not
		// The run kept its files inside the advise's staging, which would go with it: the advise
		// is kept whole, and the run's files are where that puts them.
		outer := st.Keep(errors.New("advise"))
		publish.KeptWithin(err, st.Dir(), outer)
		outerDir, _ := publish.Kept(outer)
		a.relocate(r.o.OutDir, outerDir)
		return a, err
	}
	if ctx.Err() != nil || a == nil && !errors.Is(err, ErrFaults) {
		return a, err
	}
	if perr := publishAdvice(st, progress); perr != nil {
		if kept, ok := publish.Kept(perr); ok {
			a.relocate(r.o.OutDir, kept)
			movedTo(err, r.o.OutDir, kept) // a run with faults is there too, not in OutDir
		}
		return a, errors.Join(err, perr)
	}
	return a, err
}

// relocate points the advice's runs (sweep_dir, rerun_dirs) at dir, where they are kept, rather
// than at out, where an advise that could not publish did not put them. A nil advice has none.
func (a *Advice) relocate(out, dir string) {
	if a == nil {
		return
	}
	a.Sweep = publish.Relocated(a.Sweep, out, dir)
	for i := range a.Reruns {
		a.Reruns[i] = publish.Relocated(a.Reruns[i], out, dir)
	}
}

// published is a staged run's error as it reads once published: a run with faults names the
// directory it will be in, not the staging directory, which is gone by then.
func published(res *Results, err error, dir string) error {
	if errors.Is(err, ErrFaults) && res != nil {
		return faultsError(res, dir)
	}
	return err
}

// Directories of an advise's runs in its OutDir.
const (
	sweepDir      = "sweep"
	confirmPrefix = "confirm-f5="
)

// advise runs the sweep and the confirming runs into staged, naming them in the advice by where
// they will be, in r's OutDir.
func advise(ctx context.Context, r AdviseRun, progress io.Writer, staged string) (*Advice, error) {
	o, t := r.o, r.t
	o.Progress = progress
	base := o.OutDir
	o.OutDir = filepath.Join(staged, sweepDir)
	res, err := run(ctx, "memcached-sweep", o)
	if err != nil {
		return nil, published(res, err, filepath.Join(base, sweepDir))
	}
	a := &Advice{Program: "memcached", Target: t.String(), Level: kvLevel, Sweep: filepath.Join(base, sweepDir), Points: advicePoints(res, t)}
	for i := range a.Points {
		if !a.Points[i].Met {
			continue
		}
		chosen := a.Points[i]
		a.Chosen = &chosen
		confirm := fmt.Sprintf("%s%g", confirmPrefix, chosen.Factor)
		o.Sweep, o.OutDir = []float64{chosen.Factor}, filepath.Join(staged, confirm)
		again, err := run(ctx, "memcached-sweep", o) // a factor of the sweep: as checked
		if err != nil {
			return a, published(again, err, filepath.Join(base, confirm))
		}
		a.Reruns = append(a.Reruns, filepath.Join(base, confirm))
		if pts := advicePoints(again, t); len(pts) == 1 {
			a.Confirm = &pts[0]
			if pts[0].Met {
				return a, nil
			}
			a.Missed = append(a.Missed, pts[0])
		}
	}
	return a, fmt.Errorf("%w (%s) with bulk traffic, up to line rate", ErrNoFactor, t)
}

func advicePoints(r *Results, t AdviseTarget) []AdvicePoint {
	var out []AdvicePoint
	for _, p := range sweepPoints(r, true) {
		fi := sweepBound(r.Model, p.f5)
		ap := AdvicePoint{Factor: p.f5, CapPerSec: round1(sweepCap(r.Model, p.f5)), Guaranteed: fi.Guaranteed,
			LevelRateBPS: float64(r.Model.config(model.Factors{kvLevel: model.Limited(p.f5)}).LevelRate(model.Limited(p.f5))),
			PerSec:       p.PerSec, P50US: p.P50US, P99US: p.P99US}
		if fi.Guaranteed {
			bound := float64(fi.Delay) / 1e3
			ap.BoundUS = &bound
		}
		ap.Met = (t.P99 == 0 || p.P99US*1e3 <= float64(t.P99)) && (t.Throughput == 0 || p.PerSec >= t.Throughput)
		out = append(out, ap)
	}
	return out
}

func round1(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }

// Table prints the advice: the sweep with bulk, the choice, its confirmation.
func (a *Advice) Table(w io.Writer) error {
	fmt.Fprintf(w, "%s at level %d, target %s (measured with bulk traffic at level 0); sweep in %s\n", a.Program, a.Level, a.Target, a.Sweep)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "FACTOR\tT5\tMODEL CAP req/s\tBOUND D5\tMEASURED req/s\tP50 µs\tP99 µs\tMEETS\t")
	for _, p := range a.Points {
		fmt.Fprintf(tw, "%g\t%s\t%.0f\t%s\t%.0f\t%.0f\t%.0f\t%s\t\n", p.Factor, model.Rate(p.LevelRateBPS), p.CapPerSec,
			p.bound(), p.PerSec, p.P50US, p.P99US, yesNo(p.Met))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if a.Chosen == nil {
		_, err := fmt.Fprintln(w, "no factor of the sweep meets the target")
		return err
	}
	for _, m := range a.Missed {
		if m.Factor == a.Chosen.Factor {
			continue // the last one tried: reported below
		}
		fmt.Fprintf(w, "f%d = %g met the target in the sweep, missed it on a second run (%.0f requests/s, p99 %.0fµs): the next factor was tried\n",
			a.Level, m.Factor, m.PerSec, m.P99US)
	}
	// The chosen factor's rate and bound as the table above gives them. The confirming run's own
	// differ a little (it measures ε again: 23.79Mb/s and 1.034ms where the table said 24.02Mb/s
	// and 1.024ms), which read as a different factor.
	c := a.Chosen
	fmt.Fprintf(w, "advice: f%d = %g (T%d = %s; latency bound %s)\n", a.Level, c.Factor, a.Level, model.Rate(c.LevelRateBPS), c.bound())
	if a.Confirm != nil {
		fmt.Fprintf(w, "confirmed by a second run: %.0f requests/s, p99 %.0fµs: %s\n", a.Confirm.PerSec, a.Confirm.P99US, map[bool]string{true: "meets the target", false: "MISSES the target"}[a.Confirm.Met])
	}
	return nil
}

func (p AdvicePoint) bound() string {
	if p.BoundUS == nil {
		return "none (f > m)"
	}
	return model.BoundText(time.Duration(*p.BoundUS * 1e3))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
