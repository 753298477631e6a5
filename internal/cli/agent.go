package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/qjump-net/qjump/internal/agent"
	"github.com/qjump-net/qjump/internal/host"
)

type agentOptions struct {
	config     string
	listen     string
	downOnExit bool
	stateDir   string
	cgroupRoot string
	watchPods  bool
	nodeName   string
	kubeconfig string
}

func newAgentCommand() *cobra.Command {
	opts := &agentOptions{}
	cmd := &cobra.Command{
		Use:   "agent --config FILE [--listen ADDR] [--down-on-exit] [--watch-pods --node-name NODE]",
		Short: "Keep QJump up on this host from the cluster's config file; serve metrics and health",
		Long: `agent runs on every host of a cluster (a systemd service or a Kubernetes DaemonSet) with one
shared config file: the model and dataplane keys of ` + "`qjump up --config`" + ` plus an agent: section
naming the interfaces (names or patterns such as eth*), the listen address and cgroup levels
(docs/configuration.md, docs/deployment.md).

  - It brings QJump up on every matching interface. What is already up with the same
    configuration (a previous agent's, or a hand-made qjump up) is adopted without detaching;
    with another configuration it is reloaded atomically.
  - It watches the file (a Kubernetes ConfigMap update too) and applies a change on every
    interface within a second. An invalid file is logged with the key and the reason, counted in
    qjump_agent_config_errors_total, and the running configuration stays.
  - It follows netlink link events: an interface that appears or comes back gets QJump at once,
    one that disappears has its pins removed.
  - It checks every second that QJump's hook and egress tree are still on each of its interfaces
    (no event reports a TCX link detached; a deleted clsact filter or qdisc, root qdisc or class
    of QJump's tree it hears of at once) and puts back one removed by hand: logged ("qjump's hook
    is gone", "qjump's egress tree is gone"), counted as the interface's action.
  - It keeps the file's cgroups, and with --watch-pods the pods of this node annotated
    qjump.io/level (and qjump.io/max-level), on their levels; a ceiling holds for every cgroup
    below the one it is given to.
  - It serves /metrics (Prometheus), /healthz and /readyz (every interface runs the current
    configuration) on --listen; with port 0 (127.0.0.1:0) on a free port, which its
    "agent running" log line names.

One agent runs per network namespace: a second one is refused, naming the first's pid, whatever
its --state-dir (and so is one whose --state-dir another agent uses, in any namespace).

SIGTERM or SIGINT stops it and leaves QJump attached, so traffic stays limited while the agent
restarts; --down-on-exit removes everything instead.

Needs root with these capabilities, the ones deploy/systemd and deploy/kubernetes grant: CAP_BPF
and CAP_PERFMON (programs and maps), CAP_NET_ADMIN (TCX/clsact, qdiscs), CAP_SYS_ADMIN (bpffs
pins, cgroup ids and cgroup program links) and CAP_SYS_RESOURCE (memlock, on kernels before 5.11).
Without CAP_NET_ADMIN and CAP_SYS_ADMIN it refuses to start, naming what it lacks, and exits 1;
there is no unprivileged mode (qjump calc --config FILE checks a cluster file without privilege).`,
		Example: `  sudo qjump agent --config /etc/qjump/cluster.yaml

  # in a DaemonSet: pods of this node by annotation, node name from the downward API
  qjump agent --config /etc/qjump/cluster.yaml --listen :9781 --watch-pods --node-name "$NODE_NAME" \
      --cgroup-root /host/sys/fs/cgroup`,
		Args: noArgs("config"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAgent(opts, cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.config, "config", "", "the cluster file: model, dataplane and agent: section (docs/configuration.md)")
	fs.StringVar(&opts.listen, "listen", "", "address of /metrics, /healthz and /readyz (default the file's agent.listen, else "+agent.DefaultListen+
		"); port 0 takes a free port, logged at start")
	fs.BoolVar(&opts.downOnExit, "down-on-exit", false, "on SIGTERM take QJump down and unassign cgroups instead of leaving them")
	fs.StringVar(&opts.stateDir, "state-dir", agent.DefaultStateDir, "where the agent remembers the cgroups it assigned, across restarts")
	fs.StringVar(&opts.cgroupRoot, "cgroup-root", "", "the host's cgroup v2 root (default /sys/fs/cgroup, or /sys/fs/cgroup/unified, or where neither is "+
		"mounted, as under ip netns exec, a private mount of the hierarchy, as qjump assign makes)")
	fs.BoolVar(&opts.watchPods, "watch-pods", false, "put this node's pods annotated qjump.io/level on their levels (Kubernetes)")
	fs.StringVar(&opts.nodeName, "node-name", os.Getenv("NODE_NAME"), "this node's name, for --watch-pods (default $NODE_NAME)")
	fs.StringVar(&opts.kubeconfig, "kubeconfig", "", "kubeconfig for --watch-pods outside a cluster (default: the pod's service account)")
	_ = cmd.MarkFlagRequired("config")
	return cmd
}

func runAgent(opts *agentOptions, stderr io.Writer) error {
	// The library takes an empty StateDir for its default; on the command line an empty value is
	// a mistake (an unset variable in a unit file), and the default it would fall back to may not
	// be where the operator meant the agent to remember its cgroups.
	if opts.stateDir == "" {
		return usageErrorf("invalid --state-dir \"\": need a directory for the agent's state, e.g. %s (the default "+
			"without --state-dir)", agent.DefaultStateDir)
	}
	if opts.listen != "" {
		if err := agent.CheckListen(opts.listen); err != nil {
			return usageErrorf("invalid --listen %q: %v", opts.listen, err)
		}
	}
	// A root that is no cgroup v2 hierarchy would leave every cgroup of the file "not on this host
	// (yet)" for ever, a DaemonSet's wrong mount raising no alert.
	if opts.cgroupRoot != "" && !host.IsCgroup(opts.cgroupRoot) {
		return usageErrorf("invalid --cgroup-root %q: not a cgroup v2 hierarchy: need where the host's cgroup v2 is mounted "+
			"(/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host; in a pod, its hostPath mount)", opts.cgroupRoot)
	}
	ao := agent.Options{ConfigPath: opts.config, Listen: opts.listen, DownOnExit: opts.downOnExit,
		StateDir: opts.stateDir, CgroupRoot: opts.cgroupRoot, Log: slog.New(slog.NewTextHandler(stderr, nil))}
	if opts.watchPods {
		pods, err := podOptions(opts)
		if err != nil {
			return err
		}
		ao.Pods = pods
	}
	a, err := agent.New(ao)
	if err != nil {
		return configError(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return dataplaneError(a.Run(ctx))
}

func podOptions(opts *agentOptions) (*agent.PodOptions, error) {
	if opts.nodeName == "" {
		return nil, usageErrorf("--watch-pods needs --node-name (or NODE_NAME from the downward API)")
	}
	var cfg *rest.Config
	var err error
	if opts.kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", opts.kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for --watch-pods: %w", err)
	}
	pods, err := agent.NewPodSource(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for --watch-pods: %w", err)
	}
	return &agent.PodOptions{Pods: pods, Node: opts.nodeName}, nil
}
