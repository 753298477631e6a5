package agent

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/qjump-net/qjump/internal/version"
)

// metrics are what the agent itself counts; the dataplane's own numbers come from
// dataplaneCollector at scrape time.
type metrics struct {
	registry *prometheus.Registry

	configErrors  *prometheus.CounterVec // by stage: read, invalid
	applyErrors   *prometheus.CounterVec // by operation: up, reload, down, assign, pods
	applied       *prometheus.CounterVec // by action: adopted, up, reloaded, replaced, down
	generation    prometheus.Gauge
	configHash    *prometheus.GaugeVec
	lastLoadOK    prometheus.Gauge
	lastLoadTime  prometheus.Gauge
	podErrors     prometheus.Counter
	assignedCount prometheus.Gauge
	absentCount   prometheus.Gauge
}

func newMetrics(dp prometheus.Collector) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		configErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "qjump_agent_config_errors_total",
			Help: "Config files that could not be read or were invalid; the running configuration stayed. stage: read, invalid."},
			[]string{"stage"}),
		applyErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "qjump_agent_apply_errors_total",
			Help: "Failures to apply a valid configuration, by operation: up, reload, down, assign, and pods (a list or watch of this node's pods that failed: their annotations wait)."},
			[]string{"operation"}),
		applied: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "qjump_agent_interface_actions_total",
			Help: "What reconciling an interface did: adopted (nothing to do), up, reloaded, replaced (down and up), " +
				"down (QJump taken off: the interface gone, or no longer matched by agent.interfaces, after an edit or a rename)."},
			[]string{"action"}),
		generation: prometheus.NewGauge(prometheus.GaugeOpts{Name: "qjump_agent_config_generation",
			Help: "Valid config files this agent has loaded since it started: +1 per change of content."}),
		configHash: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "qjump_agent_config_info",
			Help: "1 for the hash of the cluster configuration the agent runs (config.Hash of the solved file); compare across hosts."},
			[]string{"hash"}),
		lastLoadOK: prometheus.NewGauge(prometheus.GaugeOpts{Name: "qjump_agent_config_last_load_successful",
			Help: "1 if the last read of the config file was valid, 0 if it was not (the previous configuration runs)."}),
		lastLoadTime: prometheus.NewGauge(prometheus.GaugeOpts{Name: "qjump_agent_config_last_load_timestamp_seconds",
			Help: "When the config file was last read after a change, in Unix seconds."}),
		podErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "qjump_agent_pod_annotation_errors_total",
			Help: "Pods of this node whose qjump.io annotations were invalid and were left unassigned."}),
		assignedCount: prometheus.NewGauge(prometheus.GaugeOpts{Name: "qjump_agent_cgroups_assigned",
			Help: "Cgroups (from the file and from pods) that the agent keeps on a level."}),
		absentCount: prometheus.NewGauge(prometheus.GaugeOpts{Name: "qjump_agent_cgroups_absent",
			Help: "Cgroups the file or a pod puts on a level that are not on this host (yet): a service that runs elsewhere, or a pod's cgroup before the kubelet makes it."}),
	}
	m.registry.MustRegister(m.configErrors, m.applyErrors, m.applied, m.generation, m.configHash, m.lastLoadOK,
		m.lastLoadTime, m.podErrors, m.assignedCount, m.absentCount, buildInfo(), dp,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Zero, not absent, before the first error: rate() and alerts need the series from the start.
	for _, s := range []string{"read", "invalid"} {
		m.configErrors.WithLabelValues(s)
	}
	for _, op := range []string{"up", "reload", "down", "assign"} {
		m.applyErrors.WithLabelValues(op)
	}
	return m
}

// buildInfo is qjump_agent_build_info{version, revision, goversion} 1, the usual way of telling
// which binary runs on which host: what qjump version prints.
func buildInfo() prometheus.Collector {
	v := version.Get()
	revision := v.Revision
	if revision == "" {
		revision = "unknown"
	} else if v.Modified {
		revision += "+modified"
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "qjump_agent_build_info",
		Help:        "The qjump binary the agent runs: always 1.",
		ConstLabels: prometheus.Labels{"version": v.Version, "revision": revision, "goversion": v.Go}})
	g.Set(1)
	return g
}

func (m *metrics) setHash(hash string) {
	m.configHash.Reset()
	m.configHash.WithLabelValues(hash).Set(1)
}
