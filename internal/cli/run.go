package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/apputil"
	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

type runOptions struct {
	levelFlags
	mode    string
	command []string
}

func newRunCommand(runF func(*runOptions) error) *cobra.Command {
	opts := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run --level L [--sndbuf BYTES|auto] [--mode preload|cgroup] [--enforce] -- CMD [ARGS...]",
		Short: "Run an unmodified program with its traffic on a QJump level",
		Long: `run starts CMD with every IPv4/IPv6 socket it makes on QJump level L (SO_PRIORITY = L,
which the dataplane maps to level L). Unix sockets are untouched. Two modes:

  preload (default)  preloads libqjump-preload.so, which ships inside qjump, and replaces qjump
                     with CMD: exit status and signals are CMD's own. Works for any dynamically
                     linked program (C, C++, Python, Java...), no privilege needed for levels 0-6.
  cgroup             runs CMD in a transient cgroup v2 whose eBPF programs set the priority of
                     every socket made in it. Also works for static binaries (Go) and anything
                     that makes sockets without libc. Needs root. qjump stays as CMD's parent,
                     forwards signals, removes the cgroup afterwards and exits as CMD did. The
                     cgroup is below qjump.slice, outside the caller's: limits set on that
                     (a service's MemoryMax=) do not hold for CMD, and run says so.
                     Ctrl-C or SIGTERM before CMD starts (while run waits for QJump's
                     state lock to set --max-level) removes the cgroup and exits 130.

--sndbuf sets SO_SNDBUF so a program at a rate-limited level feels back-pressure early instead
of queueing bytes its level may not send for many epochs; "auto" sizes it to two epochs of the
level's budget, 2·f_L·P, from the dataplane running on --dev (or on the one interface QJump is up
on), or from --config FILE (docs/apputil.md explains the choice).
In cgroup mode it applies to TCP connections.

--enforce keeps the level when the program sets SO_PRIORITY itself: the call succeeds without
effect and is reported once. Without it the program's own setting wins.

--max-level (cgroup mode) is the hard limit: the dataplane never sends the cgroup's packets above
that level, whatever priority the program gives its sockets.

Level 7 needs CAP_NET_ADMIN or CAP_NET_RAW in preload mode (the kernel refuses priority 7
otherwise); run refuses before starting CMD when that is missing.

A CMD that does not exist exits 127, as does one whose interpreter (#! line) or ELF loader does
not; one that cannot be executed (a directory, no execute permission, a binary of another kind)
126, as in a shell. A script without a #! line runs with /bin/sh, as a shell runs it.`,
		Example: `  # memcached on level 5
  qjump run --level 5 -- memcached -p 11211 -U 0

  # a static Go server on level 3 (LD_PRELOAD cannot reach it)
  sudo qjump run --mode cgroup --level 3 -- ./static-go-server

  # an untrusted job on level 2 that can never take a level above 3
  sudo qjump run --mode cgroup --level 2 --max-level 3 -- ./job

  # a transfer on level 5, limited to 5G by qjump up ... --target-rate 5=5G --mode shape on eth0
  # (TCP at a limited level needs shape mode), with a send buffer of two epochs of level 5's
  # budget (an unlimited level has no budget to size from)
  qjump run --level 5 --sndbuf auto --dev eth0 -- iperf3 -c 10.0.0.2

  # see what the shim does
  QJUMP_VERBOSE=1 qjump run --level 4 -- curl -s http://10.0.0.2/`,
		// cobra's own "requires at least 1 arg(s)" does not say that the argument is the program.
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("run needs a command to run after the flags, e.g. qjump run --level 5 -- memcached -U 0")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.command = args
			if runF != nil {
				return runF(opts)
			}
			return runRun(opts, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	fs.SetInterspersed(false) // everything after CMD is CMD's
	opts.levelFlags.register(fs, levelFlagsHelp{whose: "CMD's",
		sndbuf: "SO_SNDBUF for CMD's sockets (its TCP connections in cgroup mode)", enforce: "refuse CMD's own SO_PRIORITY so it stays on the level"})
	fs.StringVar(&opts.mode, "mode", string(apputil.ModePreload), "preload (LD_PRELOAD, dynamic binaries) or cgroup (eBPF, any binary, needs root)")
	_ = cmd.MarkFlagRequired("level")
	return cmd
}

func (o *runOptions) settings(active activeConfigs) (apputil.Settings, error) {
	if o.max.flag.Changed && apputil.Mode(o.mode) != apputil.ModeCgroup {
		return apputil.Settings{}, usageErrorf("--max-level needs --mode cgroup: the dataplane's ceiling applies to a cgroup")
	}
	return o.levelFlags.settings(active)
}

// budgetSource is where --sndbuf auto reads the level's budget: a configuration file, the
// dataplane on a device, or (neither given) the dataplane on the one device QJump is up on.
type budgetSource struct {
	config, dev string
	active      activeConfigs
}

func (b budgetSource) model() (model.Config, error) {
	if b.config != "" {
		d, err := config.Load(b.config)
		if err != nil {
			return model.Config{}, configFileError(b.config, err)
		}
		// P auto is one full frame of --dev when given, else of a 1500-byte MTU, as calc assumes.
		if b.dev != "" {
			d, err = forDevice(d, b.dev, deviceMTU)
		} else {
			d, err = d.ResolvePacket(model.DefaultMTU)
		}
		if err != nil {
			return model.Config{}, err
		}
		if d, err = d.Solved(); err != nil {
			return model.Config{}, configError(fmt.Errorf("%s: %w", b.config, config.FileKey(err)))
		}
		return d.Model, nil
	}
	if b.active.err != nil {
		return model.Config{}, dataplaneError(fmt.Errorf("list QJump devices: %w", b.active.err))
	}
	cfg, err := apputil.ActiveModel(b.active.devices, b.dev)
	// Bad input, as a --dev that names no interface: the user names the dataplane to read.
	switch {
	case errors.Is(err, apputil.ErrNoActiveConfig):
		return cfg, usageErrorf("--sndbuf auto needs the level's budget: %v; bring it up (qjump up), "+
			"give --dev IF where it runs, --config FILE, or a size such as 64k", err)
	case errors.Is(err, dataplane.ErrNotUp):
		return cfg, usageErrorf("--sndbuf auto needs the level's budget: %v; bring it up there (qjump up --dev %s), "+
			"give --dev IF where it runs, --config FILE, or a size such as 64k", err, b.dev)
	case errors.Is(err, apputil.ErrSeveralActive):
		return cfg, usageErrorf("--sndbuf auto needs the level's budget: %v", err)
	}
	return cfg, err
}

// sndBufFlag reads --sndbuf: empty (the kernel's default), a size, or auto.
func sndBufFlag(value string, src budgetSource, level model.Level) (int, error) {
	switch value {
	case "":
		return 0, nil
	case "auto":
		cfg, err := src.model()
		if err != nil {
			return 0, err
		}
		n, err := apputil.AutoSndBuf(cfg, level)
		if err != nil {
			return 0, &UsageError{Err: fmt.Errorf("--sndbuf auto: %w", err)}
		}
		return n, nil
	}
	n, err := apputil.ParseSndBuf(value)
	if err != nil {
		return 0, usageErrorf("invalid --sndbuf %q: %v", value, err)
	}
	return n, nil
}

func runRun(opts *runOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	r := apputil.Run{Mode: apputil.Mode(opts.mode), Command: opts.command}
	if r.Mode != apputil.ModePreload && r.Mode != apputil.ModeCgroup {
		return usageErrorf("invalid --mode %q: need preload or cgroup", opts.mode)
	}
	active := readActiveConfigs()
	var err error
	if r.Settings, err = opts.settings(active); err != nil {
		return err
	}
	warnMapping(stderr, active, r.Settings)
	warn(stderr, noDataplaneWarning(active, r.Settings, false))
	if r.Mode == apputil.ModePreload {
		return commandError(apputil.ExecPreload(r, os.Environ()))
	}
	st, err := apputil.RunCgroup(r, apputil.Stdio{In: stdin, Out: stdout, Err: stderr})
	if err != nil {
		return commandError(dataplaneError(err))
	}
	st.DieLike()
	return exitCode(st.ShellCode())
}

// maxLevel is the --max-level flag: unset means no ceiling.
type maxLevel struct {
	level model.Level
	flag  *pflag.Flag
}

func (m *maxLevel) register(fs *pflag.FlagSet, whose string) {
	fs.Var(&unitValue[model.Level]{&m.level, model.ParseLevel}, "max-level",
		"the dataplane never sends "+whose+" packets above this level, whatever priority they set (needs the dataplane)")
	m.flag = fs.Lookup("max-level")
}

// ceiling returns the ceiling, or nil when none was given; one below the level is refused, as
// the level would silently not hold.
func (m *maxLevel) ceiling(level model.Level) (*model.Level, error) {
	if m.flag == nil || !m.flag.Changed {
		return nil, nil
	}
	if err := model.CheckCeiling("--level", level, m.level); err != nil {
		return nil, usageErrorf("invalid --max-level %d: %v", m.level, err)
	}
	l := m.level
	return &l, nil
}

// exitCode is CMD's own exit status, passed on without a message.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// statusError is an error with the status a shell would give it (127: not found, or its
// interpreter not found; 126: not executable).
type statusError struct {
	err    error
	status int
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

func commandError(err error) error {
	switch {
	case errors.Is(err, apputil.ErrCommandNotFound), errors.Is(err, apputil.ErrInterpreterNotFound):
		return &statusError{err: fmt.Errorf("run: %w", err), status: 127}
	case errors.Is(err, apputil.ErrCommandNotExecutable):
		return &statusError{err: fmt.Errorf("run: %w", err), status: 126}
	case errors.Is(err, apputil.ErrInterrupted):
		// run --mode cgroup stopped before CMD started, having removed what it made.
		return &statusError{err: fmt.Errorf("run: %w", err), status: exitInterrupted}
	case errors.Is(err, apputil.ErrPreloadCannotReach):
		return &UsageError{Err: fmt.Errorf("run: %w", err)}
	case err != nil:
		return fmt.Errorf("run: %w", err)
	}
	return nil
}
