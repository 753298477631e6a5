package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/apputil"
	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
)

// DefaultResync is how often the agent re-reads its file and re-checks every interface and cgroup
// even without an event: the safety net for an event that was lost.
const DefaultResync = 30 * time.Second

// Options configure an agent; the zero value of each optional field takes its default.
type Options struct {
	ConfigPath string        // the cluster file (docs/configuration.md)
	Listen     string        // address of /metrics, /healthz, /readyz; overrides the file's
	DownOnExit bool          // on a stop, take QJump down and unassign cgroups instead of leaving them
	StateDir   string        // where the agent remembers its assignments; DefaultStateDir
	CgroupRoot string        // the host's cgroup v2 root; found with apputil.CgroupRoot
	Resync     time.Duration // DefaultResync
	Pods       *PodOptions   // nil: no Kubernetes pod watch
	Log        *slog.Logger
}

// PodOptions turn on the pod watch: pods of Node with qjump.io annotations go on their levels.
type PodOptions struct {
	Pods PodSource // NewPodSource, or a fake clientset's CoreV1().Pods("")
	Node string
}

// Agent keeps one host's QJump in line with the cluster file.
type Agent struct {
	opts Options
	log  *slog.Logger
	m    *metrics

	current atomic.Pointer[Spec] // the running configuration, for the health handlers
	beat    atomic.Int64         // the loop's last heartbeat, Unix nanoseconds

	// Owned by the loop.
	seen      [32]byte // content of the last file read, valid or not
	seenValid bool     // whether that content was valid (and so runs)
	// readErr is why the file could not be read the last time it could not, "" since it could:
	// the same failure again (a deleted file, and every write in its directory after) is one
	// failure, counted and logged once.
	readErr    string
	generation uint64 // valid files loaded
	// devices are the interfaces this agent runs QJump on, by name: each one's ifindex when it
	// was last reconciled, 0 until then (read from the saved state). A link event carries its
	// interface's index, so one of ours renamed is known by it without looking anything up.
	devices    map[string]int
	hookFailed map[string]bool // hooks the check found gone and could not put back: the resync tries
	// netns is the agent's network namespace (host.NetnsKey), read once: it never changes
	// namespace. Saved with its interfaces for qjump status (Manages); "" if it could not be read.
	netns string
	cg    cgroups
	// releaseRoot releases the cgroup v2 root the agent mounted privately (findCgroupRoot);
	// rootErr is why there is no root, when CgroupRoot is "".
	releaseRoot func()
	rootErr     error
	pods        *podWatch
	podsSynced  atomic.Bool
	noMatchTold bool            // noteNoMatch logged that no interface matches, and none has since
	retry       *time.Timer     // a cgroup not there yet (a pod's, before the kubelet made it)
	absent      map[string]bool // wanted cgroups not on this host at the last sync, logged once
	// listenGiven: --listen was given, which the file's agent.listen never overrides.
	listenGiven bool
	cgw         *cgroupWatch // the file's cgroups being made or removed
	// announced is what the agent tells `qjump status` on its network namespace's socket
	// (lockNetns): its state directory and interfaces, as last saved (saveState).
	announced atomic.Pointer[[]byte]
	// stateDirAbs is the state directory as announced: absolute, made so once (a relative
	// --state-dir is the agent's directory's, which does not change).
	stateDirAbs string
	// policeTold is, by interface, what its police-mode warnings (notePoliceWarnings) were last
	// logged for: once per interface, edit and gso_max_size, not at every resync.
	policeTold map[string]policeTold
	// namedAbsentTold is, by interface that agent.interfaces names and this host lacks, the
	// generation of the file in which noteNamedAbsent logged so.
	namedAbsentTold map[string]uint64
}

// New checks opts and reads the cluster file: an invalid file at start is an error (exit 2), since
// there is no running configuration to keep. Without the dataplane's capabilities it returns
// dataplane.ErrNoPrivilege at once, before the file: reading the file's cgroups may need a
// private mount of the cgroup v2 hierarchy, which fails without them, and the file was blamed.
func New(opts Options) (*Agent, error) {
	if err := checkPrivilege(); err != nil {
		return nil, err
	}
	if opts.StateDir == "" {
		opts.StateDir = DefaultStateDir
	}
	if opts.Resync <= 0 {
		opts.Resync = DefaultResync
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	a := &Agent{opts: opts, log: opts.Log, devices: map[string]int{}, hookFailed: map[string]bool{},
		policeTold: map[string]policeTold{}, namedAbsentTold: map[string]uint64{}}
	a.stateDirAbs = absDir(opts.StateDir)
	a.announce()
	a.m = newMetrics(dataplaneCollector{list: dataplane.List, log: func(err error) {
		a.log.Error("read dataplane for metrics", "err", err)
	}})
	// Read once: the sum that onFile compares edits against must be of the content applied, or
	// an edit between two reads would be taken for the file already running (review, helper-86).
	data, err := os.ReadFile(opts.ConfigPath)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	spec, err := Parse(opts.ConfigPath, data)
	if err != nil {
		return nil, err
	}
	if err := a.findCgroupRoot(); err != nil {
		return nil, err
	}
	if err := resolveCgroups(&spec, a.opts.CgroupRoot, a.rootErr); err != nil {
		a.releaseRoot()
		return nil, fmt.Errorf("%s: %w", opts.ConfigPath, err)
	}
	a.seen, a.seenValid = contentSum(data), true
	a.accept(spec)
	a.m.lastLoadTime.SetToCurrentTime()
	a.listenGiven = a.opts.Listen != ""
	a.warnListenOverridden(spec.Agent.Listen)
	if a.opts.Listen == "" {
		a.opts.Listen = spec.Agent.Listen
	}
	if a.opts.Listen == "" {
		a.opts.Listen = DefaultListen
	}
	return a, nil
}

// logWarnings logs what `qjump calc --config` warns about the file the agent takes (a rate
// without a unit, an epoch over 1 s...): the agent applies it all the same, as up would, and its
// log is the only place its operator would see them.
func (a *Agent) logWarnings(spec Spec) {
	for _, w := range spec.Warnings {
		a.log.Warn("config warning", "config", a.opts.ConfigPath, "warning", w)
	}
}

// policeTold is what notePoliceWarnings last logged of an interface: the file's generation, the
// interface's index and the warnings' text.
type policeTold struct {
	generation uint64
	index      int
	text       string
}

// notePoliceWarnings logs what `qjump up` warns of dev (index) running want in police mode (TCP's
// GSO packets larger than a limited level's budget, dropped), once per interface and edit of the
// file: it depends on the interface, so logWarnings, of the file alone, cannot say it. An
// interface that takes the name of one it was told of, or whose gso_max_size changes, is told of
// again: once by name alone, neither was (review, helper-85).
func (a *Agent) notePoliceWarnings(dev string, index int, want config.Dataplane) {
	ws := dataplane.PoliceWarnings(dev, want)
	now := policeTold{generation: a.generation, index: index, text: strings.Join(ws, "\n")}
	if told, ok := a.policeTold[dev]; ok && told == now {
		return
	}
	a.policeTold[dev] = now
	for _, w := range ws {
		a.log.Warn("config warning", "config", a.opts.ConfigPath, "interface", dev, "warning", w)
	}
}

// warnListenOverridden says so when --listen overrides a different agent.listen of the file: an
// operator who narrows the file's address (127.0.0.1:9781) must not find the agent on every
// address without a word.
func (a *Agent) warnListenOverridden(fileListen string) {
	if a.listenGiven && fileListen != "" && fileListen != a.opts.Listen {
		a.log.Warn("agent.listen of the file is overridden by --listen: the agent serves on --listen's address",
			"agent.listen", fileListen, "listen", a.opts.Listen)
	}
}

// Listen is the address the agent serves on.
func (a *Agent) Listen() string { return a.opts.Listen }

// Run applies the configuration, then follows the file, the interfaces, the cgroups and the pods
// until ctx ends. It leaves QJump attached when it returns unless DownOnExit.
func (a *Agent) Run(ctx context.Context) error {
	defer a.releaseRoot()
	nsLock, err := lockNetns(func() []byte { return *a.announced.Load() })
	if err != nil {
		return err
	}
	defer nsLock.Close()
	lock, err := lockStateDir(a.opts.StateDir)
	if err != nil {
		return err
	}
	defer lock.Close()
	ln, err := net.Listen("tcp", a.opts.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", a.opts.Listen, err)
	}
	st, err := readState(a.opts.StateDir)
	if err != nil {
		a.log.Warn("agent state unreadable: starting without it", "err", err)
	}
	a.cg = cgroups{root: a.opts.CgroupRoot, applied: appliedCgroups(a.opts.CgroupRoot, st.Cgroups)}
	for _, dev := range st.Devices {
		a.devices[dev] = 0 // the first reconcile takes QJump off those the file no longer matches
	}
	a.announce()
	if a.netns, err = host.NetnsKey(); err != nil {
		a.log.Warn("network namespace unknown: until it is read, qjump status will not tell that this agent runs QJump on "+
			"its interfaces, and hooks or egress trees gone are put back only by the resync", "err", err)
	}
	a.beat.Store(time.Now().UnixNano())

	srv := a.serve(ln)
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()

	events := newEvents()
	if err := a.startWatches(ctx, events); err != nil {
		return err
	}
	a.reconcileAll()
	a.syncCgroups()
	a.log.Info("agent running", "config", a.opts.ConfigPath, "hash", a.current.Load().Hash, "listen", ln.Addr().String())
	a.loop(ctx, events)
	return a.stop()
}

// events are what the watchers send the loop.
type events struct {
	file    chan fileChange
	links   chan linkEvent
	tc      chan int      // an interface lost a tc filter or qdisc that may be its hook
	cgroups chan struct{} // the pods changed
	errs    chan error
}

func newEvents() events {
	return events{file: make(chan fileChange), links: make(chan linkEvent, 64), tc: make(chan int, 64),
		cgroups: make(chan struct{}, 1), errs: make(chan error, 8)}
}

func (a *Agent) startWatches(ctx context.Context, ev events) error {
	if err := watchConfig(ctx, a.opts.ConfigPath, ev.file); err != nil {
		return err
	}
	if err := watchLinks(ctx, ev.links, ev.errs); err != nil {
		return err
	}
	if err := watchTC(ctx, ev.tc, ev.errs); err != nil {
		a.log.Warn("no tc events: a removed clsact hook is found by the check every second", "err", err)
	}
	cw, err := watchCgroups(ctx, ev.cgroups)
	if err != nil {
		return fmt.Errorf("watch cgroups: %w", err)
	}
	a.cgw = cw
	a.watchFileCgroups()
	a.podsSynced.Store(a.opts.Pods == nil)
	if a.opts.Pods != nil {
		a.m.applyErrors.WithLabelValues("pods") // zero from the start, as the others
		a.pods = newPodWatch(a.opts.Pods.Node, ev.cgroups, func(pod string, err error) {
			a.m.podErrors.Inc()
			a.log.Warn("pod left unassigned", "pod", pod, "err", err)
		}, func(error) { a.m.applyErrors.WithLabelValues("pods").Inc() })
		go func() {
			if err := a.pods.start(ctx, a.opts.Pods.Pods); err != nil {
				ev.errs <- err
				return
			}
			a.podsSynced.Store(true)
			notify(ev.cgroups)
		}()
	}
	return nil
}

func (a *Agent) loop(ctx context.Context, ev events) {
	resync := time.NewTicker(a.opts.Resync)
	defer resync.Stop()
	check := time.NewTicker(hookCheck) // also the loop's heartbeat, for /healthz
	defer check.Stop()
	a.retry = time.NewTimer(time.Hour)
	a.retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case fc := <-ev.file:
			a.onFile(fc)
		case le := <-ev.links:
			a.onLink(le)
		case ifindex := <-ev.tc:
			a.onTC(ifindex)
		case <-ev.cgroups:
			a.syncCgroups()
		case <-a.retry.C:
			a.syncCgroups()
		case err := <-ev.errs:
			a.log.Error("watch", "err", err)
		case <-resync.C:
			data, err := os.ReadFile(a.opts.ConfigPath)
			a.onFile(fileChange{data: data, err: err})
			a.reconcileAll()
			a.syncCgroups()
		case <-check.C:
			a.checkHooks(foundByCheck)
		}
		a.beat.Store(time.Now().UnixNano())
	}
}

// onFile applies a changed file, or logs and counts why it cannot, keeping what runs.
func (a *Agent) onFile(fc fileChange) {
	if fc.err != nil {
		a.m.lastLoadOK.Set(0)
		if fc.err.Error() == a.readErr {
			return
		}
		a.readErr = fc.err.Error()
		a.m.configErrors.WithLabelValues("read").Inc()
		a.log.Error("config unreadable: keeping the running configuration", "config", a.opts.ConfigPath, "err", fc.err)
		return
	}
	a.readErr = ""
	sum := contentSum(fc.data)
	if sum == a.seen {
		// The same file again, perhaps after a moment it could not be read: its last load's
		// outcome holds again (a read error must not leave the gauge at 0 for good).
		a.m.lastLoadOK.Set(b2f(a.seenValid))
		return
	}
	a.seen, a.seenValid = sum, false
	a.m.lastLoadTime.SetToCurrentTime()
	spec, err := a.parse(fc.data)
	if err != nil {
		a.m.configErrors.WithLabelValues("invalid").Inc()
		a.m.lastLoadOK.Set(0)
		a.log.Error("config invalid: keeping the running configuration", "config", a.opts.ConfigPath,
			"err", err, "running_hash", a.current.Load().Hash)
		return
	}
	if spec.Agent.Listen != a.current.Load().Agent.Listen {
		a.noteListenEdit(spec.Agent.Listen)
	}
	a.seenValid = true
	a.accept(spec)
	a.watchFileCgroups()
	a.log.Info("config changed", "hash", spec.Hash, "generation", a.generation)
	a.reconcileAll()
	a.syncCgroups()
}

// noteListenEdit says what an edit that changed agent.listen to listen does: nothing until the
// agent restarts, unless it is the address the agent serves on (an edit undone), or --listen
// overrides it. It is compared with the address served, not the last file's: after an edit and
// its undoing, the agent said it would move to where it already was (review, helper-85).
func (a *Agent) noteListenEdit(listen string) {
	switch {
	case a.listenGiven:
		a.warnListenOverridden(listen)
	case a.servesOn(listen):
		a.log.Info("agent.listen is the address the agent serves on again", "listen", a.opts.Listen)
	case listen == "":
		// Removed from the file: the default is the address the next start serves on, and an
		// empty listen= in the log would name none (review, helper-85).
		a.log.Warn("agent.listen removed: the default address takes effect when the agent restarts",
			"listen", DefaultListen, "serving", a.opts.Listen)
	default:
		a.log.Warn("agent.listen changed: it takes effect when the agent restarts", "listen", listen, "serving", a.opts.Listen)
	}
}

// servesOn says whether the file's agent.listen is the address the agent serves on ("" is
// DefaultListen), as given to net.Listen: with port 0 the port bound differs, and a restart takes
// another anyway.
func (a *Agent) servesOn(listen string) bool {
	if listen == "" {
		listen = DefaultListen
	}
	return listen == a.opts.Listen
}

// parse reads an edit of the file as this agent takes it on this host: Parse, then the file's
// cgroups resolved under the agent's cgroup v2 root (resolveCgroups) and its agent.listen checked
// against the host's addresses (checkListenHere).
func (a *Agent) parse(data []byte) (Spec, error) {
	spec, err := Parse(a.opts.ConfigPath, data)
	if err != nil {
		return Spec{}, err
	}
	if err := resolveCgroups(&spec, a.opts.CgroupRoot, a.rootErr); err != nil {
		return Spec{}, fmt.Errorf("%s: %w", a.opts.ConfigPath, err)
	}
	// A new agent.listen takes effect at the next restart, unless --listen overrides it: one the
	// agent could not listen on then is refused now, while the running agent can say so.
	if listen := spec.Agent.Listen; !a.listenGiven && listen != "" && listen != a.current.Load().Agent.Listen {
		if err := checkListenHere(listen); err != nil {
			return Spec{}, fmt.Errorf("%s: %w", a.opts.ConfigPath, err)
		}
	}
	return spec, nil
}

// accept makes spec the configuration the agent runs, and logs what calc would warn of it.
func (a *Agent) accept(spec Spec) {
	a.logWarnings(spec)
	a.current.Store(&spec)
	a.generation++
	a.m.generation.Set(float64(a.generation))
	a.m.setHash(spec.Hash)
	a.m.lastLoadOK.Set(1)
}

func (a *Agent) onLink(ev linkEvent) {
	if ev.lost {
		a.log.Warn("link events were lost and are watched again: looking at every interface")
		a.reconcileAll()
		return
	}
	spec := a.current.Load()
	if _, ours := a.devices[ev.name]; !spec.Agent.Matches(ev.name) && !ours {
		// An interface of ours renamed to a name the file does not match arrives under its new
		// name: look at everything if it is one of ours, rather than leave QJump on it until the
		// next resync.
		if !ev.deleted && a.renamedAway(ev) {
			a.reconcileAll()
		}
		return
	}
	if ev.deleted {
		a.down(ev.name)
		a.noteNamedGone(spec.Agent, ev.name)
		return
	}
	delete(a.namedAbsentTold, ev.name) // here again: its going is told again
	a.reconcile(ev.name)
}

// renamedAway says whether the interface of ev, which the file does not match, is one this agent
// runs QJump on under another name: its index is one of ours. Only an interface of ours whose
// index is not known yet (its reconcile failed since the agent started) is looked up by name; the
// others cost nothing, on a node where every pod's veth is an event.
func (a *Agent) renamedAway(ev linkEvent) bool {
	for dev, index := range a.devices {
		if index == 0 {
			if _, err := netlink.LinkByName(dev); err != nil {
				return true
			}
			continue
		}
		if index == ev.index && dev != ev.name {
			return true
		}
	}
	return false
}

// reconcileAll brings every matching interface to the running configuration and takes QJump off
// those this agent ran it on that no longer match or exist.
func (a *Agent) reconcileAll() {
	clear(a.hookFailed) // tried again here
	spec := a.current.Load()
	names, err := matchingLinks(spec.Agent)
	if err != nil {
		a.log.Error("list interfaces", "err", err)
		return
	}
	a.noteNoMatch(spec.Agent, names)
	a.noteNamedAbsent(spec.Agent, names)
	for _, dev := range names {
		a.reconcile(dev)
	}
	for dev := range a.devices {
		if !slices.Contains(names, dev) {
			a.down(dev)
		}
	}
	gone, err := goneDevices()
	if err != nil {
		a.log.Error("list qjump devices", "err", err)
	}
	for _, dev := range gone {
		if spec.Agent.Matches(dev) {
			a.down(dev)
		}
	}
}

// noteNoMatch logs, once until it changes, that no interface of this host matches the file's
// agent.interfaces: the node then runs without QJump, which only /readyz said (review, helper-66:
// a node whose NIC is eno1 under the shipped eth*, ens*, enp* logged nothing but "agent running").
func (a *Agent) noteNoMatch(sec Section, names []string) {
	none := len(names) == 0
	if none && !a.noMatchTold {
		a.log.Warn("no interface of this host matches agent.interfaces: QJump runs on none of them",
			"interfaces", sec.Interfaces)
	}
	a.noMatchTold = none
}

// noteNamedAbsent logs each interface that agent.interfaces names (not a pattern) and this host
// lacks (names are those it has that match), at start, when it goes, and again at each edit of the
// file. Only /readyz said so, which nothing watches under systemd (review, helper-85).
func (a *Agent) noteNamedAbsent(sec Section, names []string) {
	told := map[string]uint64{}
	for _, name := range sec.named() {
		if slices.Contains(names, name) {
			continue
		}
		if a.namedAbsentTold[name] != a.generation {
			a.tellNamedAbsent(name)
		}
		told[name] = a.generation
	}
	a.namedAbsentTold = told
}

// noteNamedGone is noteNamedAbsent for the interface called name, deleted: logged when it goes,
// not at the next resync, if agent.interfaces names it and no interface has taken its name since.
func (a *Agent) noteNamedGone(sec Section, name string) {
	if !slices.Contains(sec.named(), name) || a.namedAbsentTold[name] == a.generation {
		return
	}
	if _, err := netlink.LinkByName(name); err == nil {
		return
	}
	a.tellNamedAbsent(name)
	a.namedAbsentTold[name] = a.generation
}

func (a *Agent) tellNamedAbsent(name string) {
	a.log.Warn("interface named in agent.interfaces is not on this host: QJump goes up on it when it appears, "+
		"and /readyz answers 503 until then", "interface", name)
}

// reconcile brings dev to the running configuration, and says whether it runs it now.
func (a *Agent) reconcile(dev string) bool {
	var action Action
	var renamed string
	want, index, err := wantFor(*a.current.Load(), dev)
	if err == nil {
		action, renamed, err = reconcileDevice(dev, want)
	}
	if renamed != "" && !a.current.Load().Agent.Matches(renamed) {
		// The interface that had dev's name is renamed to a name the file does not match, and dev
		// is another interface that took its name: QJump comes off the renamed one, as when no
		// interface takes its name (down). It kept QJump for good, unmanaged (review, helper-94).
		a.down(renamed)
	}
	if errors.Is(err, dataplane.ErrNoDevice) {
		// Gone between its event and now (a veth whose peer was deleted reports a change first).
		a.down(dev)
		return false
	}
	if err != nil {
		op := "up"
		if action == Reloaded {
			op = "reload"
		}
		a.m.applyErrors.WithLabelValues(op).Inc()
		a.log.Error("apply config", "interface", dev, "operation", op, "err", err)
		return false
	}
	delete(a.hookFailed, dev)
	_, ours := a.devices[dev]
	a.devices[dev] = index // the state saves names only: a new index is no change to save
	if !ours {
		a.saveState()
	}
	a.notePoliceWarnings(dev, index, want)
	a.m.applied.WithLabelValues(string(action)).Inc()
	if action != Adopted {
		// The hash of what the interface runs, as qjump_config_info exports it: the file's own
		// hash differs where P comes from the device's MTU; and the build of the program it runs
		// now, which an upgraded agent's reload changes.
		a.log.Info("interface", "name", dev, "action", action, "hash", config.Hash(want), "program", dataplane.ProgramBuild())
	}
	return true
}

func (a *Agent) down(dev string) {
	if _, ours := a.devices[dev]; ours {
		delete(a.devices, dev)
		a.saveState()
	}
	delete(a.hookFailed, dev)
	delete(a.policeTold, dev)
	st, err := dataplane.DeviceStatus(dev)
	if errors.Is(err, dataplane.ErrNotUp) {
		return // never up (or already down): nothing to clean
	}
	if err == nil && st.Device != dev && a.current.Load().Agent.Matches(st.Device) {
		// Renamed to a name the file matches too: the state under the old name is the renamed
		// device's, and Down would take QJump off it. It stays; the new name is its own interface.
		a.log.Info("interface renamed: qjump stays on it", "from", dev, "to", st.Device)
		return
	}
	if err := dataplane.Down(dev); err != nil {
		a.m.applyErrors.WithLabelValues("down").Inc()
		a.log.Error("take qjump down", "interface", dev, "err", err)
		return
	}
	a.m.applied.WithLabelValues(string(Removed)).Inc()
	a.log.Info("interface", "name", dev, "action", Removed)
}

// syncCgroups makes the assignments what the file and the pods say.
func (a *Agent) syncCgroups() {
	want, missing := a.wantedCgroups()
	absent, err := a.cg.sync(want)
	if err != nil {
		a.m.applyErrors.WithLabelValues("assign").Inc()
		a.log.Error("assign cgroups", "err", err)
		missing = true
	}
	a.noteAbsent(absent, want)
	// A cgroup removed since it was assigned stays in applied, to be swept or assigned again when
	// it comes back; it is absent, not kept on a level, and counted once, as absent.
	kept := len(a.cg.applied)
	for _, path := range absent {
		if _, ok := a.cg.applied[path]; ok {
			kept--
		}
	}
	a.m.assignedCount.Set(float64(kept))
	// A cgroup not there yet is looked for again every second: a pod's appears right after the
	// pod, a service's when it starts. Looking costs one system call; only its coming is logged.
	if (missing || len(absent) > 0) && a.retry != nil {
		a.retry.Reset(time.Second)
	}
	a.saveState()
}

// saveState writes what a restarted agent needs to know (state); an error is logged, not fatal.
// What it runs QJump on is announced too (announce).
func (a *Agent) saveState() {
	a.announce()
	if err := writeState(a.opts.StateDir, a.state()); err != nil {
		a.log.Error("save agent state", "err", err)
	}
}

// announce makes the agent's state directory and interfaces now what it tells `qjump status`.
func (a *Agent) announce() {
	line := announcement{StateDir: a.stateDirAbs, Devices: sortedKeys(a.devices)}.line()
	a.announced.Store(&line)
}

// absDir is dir made absolute (a relative one is the agent's directory's), or as given when the
// agent's directory cannot be read.
func absDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// state is the agent's state as saved: the cgroups it assigned, the interfaces it runs QJump on.
func (a *Agent) state() state {
	return state{Cgroups: recordCgroups(a.opts.CgroupRoot, a.cg.applied), Devices: sortedKeys(a.devices), Netns: a.netns}
}

// noteAbsent logs each wanted cgroup that is not on this host once, when it is first found
// missing (and again if it goes after having been there), and counts them in a gauge. A cluster
// file names services that run on some hosts only: on the others this is the normal state, not
// an error to log every second.
func (a *Agent) noteAbsent(absent []string, want map[string]target) {
	now := map[string]bool{}
	for _, path := range absent {
		now[path] = true
		if !a.absent[path] {
			a.log.Info("cgroup not on this host (yet): it is put on its level when it appears",
				"cgroup", apputil.CgroupName(a.opts.CgroupRoot, path), "source", want[path].Source)
		}
	}
	a.absent = now
	a.m.absentCount.Set(float64(len(absent)))
}

// wantedCgroups is every cgroup the file and the pods put on a level, by absolute path; missing
// says some pod's cgroup was not found (yet). Until the pod list has arrived, the pods assigned
// before stay: a restarted agent must not take pods off their levels while it catches up.
func (a *Agent) wantedCgroups() (want map[string]target, missing bool) {
	want = map[string]target{}
	if a.podsSynced.Load() && a.pods != nil {
		for _, p := range a.pods.placements() {
			path, err := podCgroup(a.opts.CgroupRoot, p.UID, p.QOS)
			if err != nil {
				missing = true
				continue
			}
			want[path] = target{Placement: p.Placement, Source: p.source()}
		}
	} else {
		for path, as := range a.cg.applied {
			if strings.HasPrefix(as.Source, "pod ") {
				want[path] = target{Placement: as.Placement, Source: as.Source}
			}
		}
	}
	spec := a.current.Load()
	for i, r := range spec.Agent.Cgroups {
		p := Placement{Level: *r.Level, MaxLevel: noCeiling, Enforce: r.Enforce} // validate: never nil
		if r.MaxLevel != nil {
			p.MaxLevel = *r.MaxLevel
		}
		want[spec.cgroupPaths[i]] = target{Placement: p, Source: "config"}
	}
	return want, missing
}

// watchFileCgroups points the cgroup watch at the cgroups the running file names.
func (a *Agent) watchFileCgroups() {
	if a.cgw == nil {
		return
	}
	a.cgw.set(slices.Clone(a.current.Load().cgroupPaths))
}

// stop leaves QJump attached (traffic stays limited while the agent restarts) or, with
// DownOnExit, removes everything the agent made.
func (a *Agent) stop() error {
	if !a.opts.DownOnExit {
		a.log.Info("agent stopped: qjump stays attached", "interfaces", len(a.devices))
		return writeState(a.opts.StateDir, a.state())
	}
	var errs []error
	for dev := range a.devices {
		errs = append(errs, dataplane.Down(dev))
	}
	_, err := a.cg.sync(nil)
	errs = append(errs, err)
	for _, f := range []string{stateFile(a.opts.StateDir), lockFile(a.opts.StateDir)} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	_ = os.Remove(a.opts.StateDir)
	a.log.Info("agent stopped: qjump taken down", "interfaces", len(a.devices))
	return errors.Join(errs...)
}

func (a *Agent) serve(ln net.Listener) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(a.m.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", a.healthz)
	mux.HandleFunc("/readyz", a.readyz)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Error("serve", "err", err)
		}
	}()
	return srv
}

// b2f is a gauge's value for a bool: 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
