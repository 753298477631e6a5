// Package experiment runs the paper's experiments on the namespace testbed, one file each: ping
// vs iperf (Table 1, Fig. 3a), memcached vs bulk (Fig. 3b), the fan-in latency bound (Fig. 11),
// and the applications: barrier synchronisation (Fig. 3c), PTP (Fig. 5, 7), two-phase commit
// (Fig. 6), the memcached factor sweep (Fig. 10) with the advisor built on it, and all three
// together (mixed). Each writes samples.csv, results.json, PNG plots and summary.md into its
// output directory.
package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/publish"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
)

// experiment is one of the paper's experiments.
type experiment struct {
	name, title string
	hosts       int                                       // hosts it needs by default
	rate        model.Rate                                // its default edge rate R (0: testbed.DefaultRate)
	minHosts    int                                       // fewest hosts it can run with
	run         func(ctx context.Context, env *Env) error // runs the arms, recording rows
	targets     func(r *Results) []results.Target         // the criteria on the figures
	plots       func(r *Results, rows []results.Row, dir string) ([]string, error)
	paper       func(r *Results, s results.Series) string // the paper's figure beside a series, "" where none compares
	// plotted are the tables of what the plots draw that the series do not show as they are (a
	// rate, a ratio of RMS values): results.json's plotted, summary.md's Figures (may be nil).
	plotted func(r *Results) []results.PlotTable
	// lossAllowed is the fraction of a series' samples the network may lose, where the experiment
	// knows it must lose (almost) none: a level QJump protects. nil or false: any loss short of all.
	lossAllowed func(r *Results, s results.Series) (float64, bool)
	// evidence adds the worst samples to the targets r.Targets missed (may be nil).
	evidence func(r *Results, rows []results.Row)
	// derive is rows computed from the measured ones and the machine's stalls, for the series
	// and targets only (never written to samples.csv; may be nil).
	derive func(r *Results, rows []results.Row) []results.Row
	// fromSeries says that plots and targets need only the series, which results.json holds:
	// report redraws them without samples.csv, which is not committed (several MB). Evidence,
	// drawn from the rows, is then the run's own, where keepEvidence finds it still holds.
	fromSeries   bool
	keepEvidence func(r *Results, written []results.Target)
}

var experiments = map[string]experiment{}

func register(e experiment) { experiments[e.name] = e }

// Names lists the experiments.
func Names() []string {
	var n []string
	for k := range experiments {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// HostsText says, for --hosts's help, how many hosts each experiment runs by default and the
// fewest it can run with: "2pc 10 (at least 5), barrier 6 (at least 6), ...".
func HostsText() string {
	var parts []string
	for _, name := range Names() {
		e := experiments[name]
		parts = append(parts, fmt.Sprintf("%s %d (at least %d)", name, e.hosts, e.minHosts))
	}
	return strings.Join(parts, ", ")
}

// HostsOf is the hosts experiment name runs with by default and the fewest it can run with.
func HostsOf(name string) (hosts, fewest int) {
	return experiments[name].hosts, experiments[name].minHosts
}

// ErrUnknown is an experiment name that does not exist.
var ErrUnknown = errors.New("unknown experiment")

// ErrFaults is a run whose figures the network cannot explain (Results.Faults): the files are
// written, marked as faulty, so that the cause can be found, and the run fails.
var ErrFaults = errors.New("measurement faults")

// Options configure a run.
type Options struct {
	Quick   bool
	OutDir  string
	BulkCC  string         // congestion control of the bulk flows (cubic, like the paper's loss-based TCP)
	Testbed testbed.Config // Hosts or Rate 0: the experiment's default
	// Epsilon is the ε given to qjump up where EpsilonGiven; otherwise the run measures it (the
	// idle one-way p99). A flag of its own, since 0 is an ε that can be given.
	Epsilon      time.Duration
	EpsilonGiven bool
	Progress     io.Writer
	Sweep        []float64 // memcached-sweep: the level-5 factors to measure (nil: its default sweep)
	// LetCPUsIdle leaves the CPUs' idle states alone; by default a run holds them polling
	// (docs/testbed.md, "Machine stalls").
	LetCPUsIdle bool
}

// CheckedRun is an experiment and its options that Check accepted: Run runs it without checking
// them again.
type CheckedRun struct {
	name    string
	o       Options
	checked bool // false in the zero value, which Run refuses
}

// InDir is the run writing into dir rather than the options' OutDir: the directory a run without
// one gets is chosen once the input is checked, when it is made.
func (r CheckedRun) InDir(dir string) CheckedRun {
	r.o.OutDir = dir
	return r
}

// Check validates name and options before anything is built: the input first, then what the
// machine must have (checkHost).
func Check(name string, o Options) (CheckedRun, error) {
	if err := checkInput(name, o); err != nil {
		return CheckedRun{}, err
	}
	if err := checkHost(o); err != nil {
		return CheckedRun{}, err
	}
	return CheckedRun{name, o, true}, nil
}

// checkInput is Check's part that asks nothing of the machine.
func checkInput(name string, o Options) error {
	e, ok := experiments[name]
	if !ok {
		return fmt.Errorf("%w %q: the experiments are %s", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	if o.Testbed.Hosts != 0 && o.Testbed.Hosts < e.minHosts {
		return &model.FieldError{Field: "hosts", Value: fmt.Sprint(o.Testbed.Hosts), Allowed: fmt.Sprintf("%s needs at least %d hosts", name, e.minHosts)}
	}
	if o.BulkCC == "" || strings.ContainsAny(o.BulkCC, " /") {
		return &model.FieldError{Field: "bulk-cc", Value: o.BulkCC, Allowed: bulkCCAllowed}
	}
	if o.EpsilonGiven {
		if err := checkEpsilon(withDefaults(e, o.Testbed), o.Epsilon); err != nil {
			return err
		}
	}
	for _, f := range o.Sweep {
		if !(f > 0) {
			return &model.FieldError{Field: "sweep", Value: fmt.Sprint(f), Allowed: "factors greater than 0"}
		}
	}
	return withDefaults(e, o.Testbed).Validate()
}

const bulkCCAllowed = "a TCP congestion control the kernel has, e.g. cubic, bbr, reno"

// checkHost is what Check asks of this machine once the input is valid: the privilege first,
// since without it the kernel answers an unprivileged process differently (it may set only the
// congestion controls in net.ipv4.tcp_allowed_congestion_control, so cubic looked missing).
func checkHost(o Options) error {
	if err := testbed.CheckPrivilege(); err != nil {
		return err
	}
	if !kernelHasCC(o.BulkCC) {
		return &model.FieldError{Field: "bulk-cc", Value: o.BulkCC, Allowed: bulkCCAllowed}
	}
	return nil
}

// withDefaults fills the testbed's hosts and rate that the options left to the experiment.
func withDefaults(e experiment, c testbed.Config) testbed.Config {
	if c.Hosts == 0 {
		c.Hosts = e.hosts
	}
	if c.Rate == 0 {
		c.Rate = testbed.DefaultRate
		if e.rate != 0 {
			c.Rate = e.rate
		}
	}
	return c
}

// Run builds a testbed, runs the experiment Check accepted on it, writes the output files and
// removes the testbed, also when ctx is cancelled (SIGINT/SIGTERM). It says what it does to
// progress.
func Run(ctx context.Context, r CheckedRun, progress io.Writer) (*Results, error) {
	if !r.checked {
		return nil, errors.New("run: the experiment was not checked (Check makes it)")
	}
	o := r.o
	o.Progress = progress
	return run(ctx, r.name, o)
}

// run is Run of a name and options already checked (Check, CheckAdvise). testbed.Up still checks
// the testbed it builds, as it does for every caller: that is the guard of the package that
// touches the kernel, not the input's check.
func run(ctx context.Context, name string, o Options) (*Results, error) {
	e := experiments[name]
	o.Testbed = withDefaults(e, o.Testbed)
	env := newEnv(e, o)
	env.logf("building testbed: %d hosts, R=%s, switch queues of %d packets", o.Testbed.Hosts, o.Testbed.Rate, o.Testbed.Buffer)
	tb, err := testbed.Up(ctx, o.Testbed)
	if err != nil {
		return nil, fmt.Errorf("build testbed: %w", err)
	}
	// The output directory is made once the run can start: a testbed that could not be built
	// (busy, no privilege) leaves nothing in it. The run writes into a staging directory in it
	// (staging.go), which replaces the earlier run only once the run has written every file.
	st, err := stage(o.OutDir)
	if err != nil {
		return nil, errors.Join(err, tb.Down())
	}
	published := false
	defer func() {
		if !published {
			st.Discard()
		}
	}()
	env.opts.OutDir = st.Dir()
	env.tb = tb
	watch := watchMachine(env, st.Dir())
	runErr := e.run(ctx, env)
	env.procs.stopAll()
	watch.stop(env)
	downErr := tb.Down()
	if downErr != nil {
		env.logf("%v", downErr)
	} else {
		env.logf("testbed removed")
	}
	// A testbed that could not be removed is said in every case (review, helper-86: an
	// interrupted or failed run said "testbed removed" regardless).
	if ctx.Err() != nil {
		if downErr != nil {
			return nil, fmt.Errorf("run %s: interrupted; %w", name, downErr)
		}
		return nil, fmt.Errorf("run %s: interrupted; testbed removed", name)
	}
	if runErr != nil {
		return nil, errors.Join(fmt.Errorf("run %s: %w", name, runErr), downErr)
	}
	if downErr != nil {
		return nil, downErr
	}
	env.res.DurationS = time.Since(env.res.Started).Seconds()
	// From here the run has measured: a file it cannot write keeps what it has (keep), for
	// qjump testbed report once the cause is mended, rather than discard it.
	if err := results.WriteRowsFile(filepath.Join(st.Dir(), samplesFile), env.rows); err != nil {
		return nil, st.Keep(err)
	}
	// A run with faults has written every file, marked as faulty, so that the cause can be found:
	// it is published like any other, and still fails.
	err = finish(env.res, env.rows, st.Dir())
	if err != nil && !errors.Is(err, ErrFaults) {
		keepRecord(env.res, st.Dir())
		return nil, st.Keep(err)
	}
	if perr := publishRun(st, name, o.Progress); perr != nil {
		return nil, perr
	}
	published = true
	if err != nil {
		return env.res, faultsError(env.res, o.OutDir)
	}
	return env.res, nil
}

// Report rebuilds statistics, targets, plots and summary.md of dir from its samples.csv and
// results.json. Without samples.csv it redraws an experiment whose plots and targets need only
// the series (fromSeries) from results.json alone (redraw), and refuses any other.
func Report(dir string) (*Results, error) {
	r := &Results{}
	if err := results.ReadJSON(filepath.Join(dir, "results.json"), r); err != nil {
		return nil, err
	}
	e, ok := experiments[r.Experiment]
	if !ok {
		return nil, fmt.Errorf("results in %s: %w %q", dir, ErrUnknown, r.Experiment)
	}
	rows, err := results.ReadRowsFile(filepath.Join(dir, samplesFile))
	switch {
	case errors.Is(err, fs.ErrNotExist) && e.fromSeries:
		return r, redraw(r, dir)
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("no %s in %s: %s's plots are drawn from every sample, which results.json does not hold, so they cannot be redrawn without it (%s's can): %w",
			samplesFile, dir, r.Experiment, strings.Join(fromSeriesNames(), ", "), err)
	case err != nil:
		return nil, err
	}
	return r, finish(r, rows, dir)
}

// samplesFile holds a run's rows.
const samplesFile = "samples.csv"

// fromSeriesNames lists the experiments that report redraws from results.json alone.
func fromSeriesNames() []string {
	var names []string
	for _, n := range Names() {
		if experiments[n].fromSeries {
			names = append(names, n)
		}
	}
	return names
}

// finish derives everything from the rows: series statistics, faults, targets, plots, summary.md.
// It returns ErrFaults, after writing every file, when the run has faults.
func finish(r *Results, rows []results.Row, dir string) error {
	e := experiments[r.Experiment]
	if err := loadStalls(r, dir); err != nil {
		return err
	}
	if e.derive != nil {
		rows = append(rows[:len(rows):len(rows)], e.derive(r, rows)...)
	}
	r.Series = results.SeriesOf(rows)
	r.ParamsFromArms()
	r.judge()
	if e.evidence != nil {
		e.evidence(r, rows)
	}
	return write(r, rows, true, dir)
}

// redraw is finish without the rows, for an experiment whose plots and targets need only the
// series (fromSeries): those results.json holds, as the run computed them from its rows, derived
// ones included. The targets are judged on them again; the samples a missed one lists come from
// the rows, so they are the run's, where they still hold (keepEvidence).
func redraw(r *Results, dir string) error {
	e := experiments[r.Experiment]
	written := r.Targets
	if err := loadStalls(r, dir); err != nil {
		return err
	}
	r.ParamsFromArms()
	r.judge()
	if e.keepEvidence != nil {
		e.keepEvidence(r, written)
	}
	return write(r, nil, false, dir)
}

// judge finds r's faults, tabulates its plotted figures and judges its targets, from its series.
func (r *Results) judge() {
	e := experiments[r.Experiment]
	var allowed func(results.Series) (float64, bool)
	if e.lossAllowed != nil {
		allowed = func(s results.Series) (float64, bool) { return e.lossAllowed(r, s) }
	}
	r.Faults = results.LossFaults(r.Series, allowed)
	r.Plotted = nil
	if e.plotted != nil {
		r.Plotted = e.plotted(r)
	}
	r.Targets = e.targets(r)
}

// write draws the plots and writes results.json and summary.md, listing the files in dir, with
// samples.csv where the rows came from it. It returns ErrFaults, after writing every file, when
// the run has faults.
func write(r *Results, rows []results.Row, withSamples bool, dir string) error {
	plots, err := experiments[r.Experiment].plots(r, rows, dir)
	if err != nil {
		return err
	}
	r.Files = nil
	if withSamples {
		r.Files = append(r.Files, samplesFile)
	}
	r.Files = append(r.Files, "results.json", "summary.md")
	if r.stalls != nil {
		r.Files = append(r.Files, stallsFile)
	}
	r.Files = append(r.Files, plots...)
	if err := results.WriteJSON(filepath.Join(dir, "results.json"), r); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.md"), []byte(Summary(r)), 0o644); err != nil {
		return err
	}
	if len(r.Faults) > 0 {
		return faultsError(r, dir)
	}
	return nil
}

// keepRecord writes the run's results.json into dir where finish did not get to it (it draws the
// plots first), so that qjump testbed report can rebuild a kept run from it and samples.csv.
func keepRecord(r *Results, dir string) {
	path := filepath.Join(dir, "results.json")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		_ = results.WriteJSON(path, r)
	}
}

// faultsError is ErrFaults of r, whose files are in dir.
func faultsError(r *Results, dir string) error {
	return &faultsErr{faults: r.Faults, dir: dir}
}

// faultsErr is a run's ErrFaults and the directory its files are in, which an advise whose runs
// could not be published points at where they were kept instead (movedTo).
type faultsErr struct {
	faults []string
	dir    string
}

func (f *faultsErr) Error() string {
	return fmt.Sprintf("%v in %s: %s", ErrFaults, f.dir, strings.Join(f.faults, "; "))
}

func (f *faultsErr) Unwrap() error { return ErrFaults }

// movedTo points err's run, if it is a faults error of a run under from, at the same place under
// to, where it has been moved (publish.Relocated).
func movedTo(err error, from, to string) {
	var f *faultsErr
	if errors.As(err, &f) {
		f.dir = publish.Relocated(f.dir, from, to)
	}
}

// kernelHasCC says whether a TCP socket can use congestion control cc, as iperf3's -C asks of
// the kernel: the run is refused before anything is built, not after its idle arms, when the
// first bulk flow fails ("unable to set TCP_CONGESTION"). Setting it also loads its module, as
// iperf3's own request would. A socket that cannot be made leaves the question to iperf3.
func kernelHasCC(cc string) bool {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return true
	}
	defer unix.Close(fd)
	return unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, cc) == nil
}
