package agent_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	serjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/qjump-net/qjump/internal/agent"
	"github.com/qjump-net/qjump/internal/cli"
	"github.com/qjump-net/qjump/internal/testutil"
)

const deployDir = "../../deploy"

// agentFlags parses args as `qjump agent`'s real command line would: a flag the manifest or the
// unit gives that the agent does not have fails here, not on a node.
func agentFlags(t *testing.T, args []string) *cobra.Command {
	t.Helper()
	root := cli.NewRootCommand(io.Discard, io.Discard)
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.Name() != "agent" {
		t.Fatalf("%v: not the agent command (%v)", args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("agent flags %v: %v", rest, err)
	}
	if len(cmd.Flags().Args()) > 0 {
		t.Fatalf("agent takes no arguments, got %v", cmd.Flags().Args())
	}
	return cmd
}

func flag(cmd *cobra.Command, name string) string { return cmd.Flags().Lookup(name).Value.String() }

// manifests decodes every document under deploy/kubernetes strictly into the k8s.io/api types:
// an unknown or misspelt field is an error, as `kubectl apply --validate=strict` would say.
func manifests(t *testing.T) []runtime.Object {
	t.Helper()
	strict := serjson.NewSerializerWithOptions(serjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
		serjson.SerializerOptions{Yaml: true, Strict: true})
	files, _ := filepath.Glob(filepath.Join(deployDir, "kubernetes", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no manifests under deploy/kubernetes")
	}
	var out []runtime.Object
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := utilyaml.NewYAMLReader(bufioReader(data))
		for {
			doc, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(bytes.TrimSpace(stripComments(doc))) == 0 {
				continue
			}
			obj, _, err := strict.Decode(doc, nil, nil)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, obj)
		}
	}
	return out
}

func TestKubernetesManifests(t *testing.T) {
	var ds *appsv1.DaemonSet
	var sa *corev1.ServiceAccount
	var role *rbacv1.ClusterRole
	var binding *rbacv1.ClusterRoleBinding
	configMaps := map[string]*corev1.ConfigMap{}
	for _, obj := range manifests(t) {
		switch o := obj.(type) {
		case *appsv1.DaemonSet:
			ds = o
		case *corev1.ServiceAccount:
			sa = o
		case *rbacv1.ClusterRole:
			role = o
		case *rbacv1.ClusterRoleBinding:
			binding = o
		case *corev1.ConfigMap:
			configMaps[o.Name] = o
		case *corev1.Namespace:
		default:
			t.Errorf("unexpected manifest %T", obj)
		}
	}
	if ds == nil || sa == nil || role == nil || binding == nil || len(configMaps) != 1 {
		t.Fatalf("want a DaemonSet, a ServiceAccount, a ClusterRole, a binding and one ConfigMap")
	}
	pod := ds.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(pod.Containers))
	}
	c := pod.Containers[0]
	cmd := agentFlags(t, c.Args)
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	volumeAt := func(path string) corev1.Volume {
		t.Helper()
		m, ok := mounts[path]
		if !ok {
			t.Fatalf("nothing mounted at %s", path)
		}
		if m.SubPath != "" {
			t.Errorf("%s mounted with subPath: the kubelet never updates those", path)
		}
		return volumes[m.Name]
	}

	// The config file lies in the mounted ConfigMap, and what it holds is a valid cluster file.
	cfg := flag(cmd, "config")
	v := volumeAt(filepath.Dir(cfg))
	if v.ConfigMap == nil || configMaps[v.ConfigMap.Name] == nil {
		t.Fatalf("--config %s is not in a mounted ConfigMap of the manifests", cfg)
	}
	data, ok := configMaps[v.ConfigMap.Name].Data[filepath.Base(cfg)]
	if !ok {
		t.Fatalf("ConfigMap %s has no key %s", v.ConfigMap.Name, filepath.Base(cfg))
	}
	if _, err := agent.Parse("ConfigMap "+v.ConfigMap.Name, []byte(data)); err != nil {
		t.Errorf("the ConfigMap's cluster file is invalid: %v", err)
	}

	// The host's bpffs where the dataplane looks for it, the host's cgroup tree where --cgroup-root
	// says, the state directory on the host so that it outlives the pod.
	if v := volumeAt("/sys/fs/bpf"); v.HostPath == nil || v.HostPath.Path != "/sys/fs/bpf" {
		t.Errorf("/sys/fs/bpf is not the host's bpffs: %+v", v)
	}
	if m := mounts["/sys/fs/bpf"]; m.MountPropagation == nil || *m.MountPropagation == corev1.MountPropagationNone {
		t.Errorf("bpffs mounted without propagation: a bpffs the host mounts later stays invisible")
	}
	if v := volumeAt(flag(cmd, "cgroup-root")); v.HostPath == nil || v.HostPath.Path != "/sys/fs/cgroup" {
		t.Errorf("--cgroup-root %s is not the host's /sys/fs/cgroup: %+v", flag(cmd, "cgroup-root"), v)
	}
	if v := volumeAt(flag(cmd, "state-dir")); v.HostPath == nil {
		t.Errorf("--state-dir %s is not on the host: a restarted pod would forget its assignments", flag(cmd, "state-dir"))
	}

	// Probes, port and scrape annotation all on --listen.
	_, port, _ := strings.Cut(flag(cmd, "listen"), ":")
	for name, probe := range map[string]*corev1.Probe{"/healthz": c.LivenessProbe, "/readyz": c.ReadinessProbe} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != name || probe.HTTPGet.Port.String() != port {
			t.Errorf("probe %s does not get %s on port %s: %+v", name, name, port, probe)
		}
	}
	if len(c.Ports) != 1 || strconv.Itoa(int(c.Ports[0].ContainerPort)) != port {
		t.Errorf("container port %v, want %s", c.Ports, port)
	}
	if a := ds.Spec.Template.Annotations; a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != port {
		t.Errorf("scrape annotations %v, want scrape on port %s", a, port)
	}

	// Node name from the downward API for the pod watch.
	if flag(cmd, "node-name") != "$(NODE_NAME)" || flag(cmd, "watch-pods") != "true" {
		t.Errorf("--watch-pods %s --node-name %s", flag(cmd, "watch-pods"), flag(cmd, "node-name"))
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if e := env["NODE_NAME"]; e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
		t.Errorf("NODE_NAME is not the pod's spec.nodeName: %+v", e)
	}

	// Host network, capabilities rather than privileged.
	sc := c.SecurityContext
	if !pod.HostNetwork || sc == nil || (sc.Privileged != nil && *sc.Privileged) || sc.Capabilities == nil {
		t.Fatalf("want host network and an unprivileged container with capabilities")
	}
	for _, want := range []corev1.Capability{"BPF", "NET_ADMIN", "SYS_ADMIN"} {
		if !containsCap(sc.Capabilities.Add, want) {
			t.Errorf("capability %s not added", want)
		}
	}

	// RBAC: the pod's service account may get, list and watch pods.
	if pod.ServiceAccountName != sa.Name || sa.Namespace != ds.Namespace {
		t.Errorf("DaemonSet runs as %s, the manifests make %s/%s", pod.ServiceAccountName, sa.Namespace, sa.Name)
	}
	if binding.RoleRef.Name != role.Name || len(binding.Subjects) != 1 || binding.Subjects[0].Name != sa.Name ||
		binding.Subjects[0].Namespace != sa.Namespace {
		t.Errorf("the binding does not give role %s to %s/%s: %+v", role.Name, sa.Namespace, sa.Name, binding)
	}
	verbs := map[string]bool{}
	for _, r := range role.Rules {
		if contains(r.Resources, "pods") && contains(r.APIGroups, "") {
			for _, v := range r.Verbs {
				verbs[v] = true
			}
		}
	}
	if !verbs["get"] || !verbs["list"] || !verbs["watch"] {
		t.Errorf("the role lets the agent %v on pods, it needs get, list and watch", verbs)
	}
}

// TestSystemdUnit verifies the unit with systemd-analyze (with ExecStart pointing at a qjump that
// exists here) and checks that its command line is the agent's and its hardening is in place.
func TestSystemdUnit(t *testing.T) {
	unit, err := os.ReadFile(filepath.Join(deployDir, "systemd", "qjump-agent.service"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, line := range strings.Split(string(unit), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			keys[k] = v
		}
	}
	exec0 := strings.Fields(keys["ExecStart"])
	if len(exec0) < 2 || exec0[0] != "/usr/local/bin/qjump" {
		t.Fatalf("ExecStart %q", keys["ExecStart"])
	}
	cmd := agentFlags(t, exec0[1:])
	// "yes": kept across a stop and start too (an upgrade), as the pins it describes are.
	if dir := flag(cmd, "state-dir"); dir != "/run/"+keys["RuntimeDirectory"] || keys["RuntimeDirectoryPreserve"] != "yes" {
		t.Errorf("--state-dir %s is not the RuntimeDirectory kept across stops (%s, preserve %s)",
			dir, keys["RuntimeDirectory"], keys["RuntimeDirectoryPreserve"])
	}
	// The file's agent.listen says where the endpoints are (docs/configuration.md); a --listen in
	// the unit would override it, so that a file narrowing them to 127.0.0.1 served on every address.
	if l := flag(cmd, "listen"); l != "" {
		t.Errorf("ExecStart passes --listen %s: it overrides the cluster file's agent.listen", l)
	}
	for k, want := range map[string]string{"ProtectSystem": "strict", "Restart": "on-failure", "NoNewPrivileges": "yes",
		"ReadWritePaths": "/sys/fs/bpf"} {
		if keys[k] != want {
			t.Errorf("%s=%q, want %q", k, keys[k], want)
		}
	}
	caps := strings.Fields(keys["CapabilityBoundingSet"])
	for _, want := range []string{"CAP_BPF", "CAP_NET_ADMIN", "CAP_SYS_ADMIN"} {
		if !contains(caps, want) {
			t.Errorf("CapabilityBoundingSet lacks %s", want)
		}
	}
	if contains(caps, "CAP_SYS_MODULE") || len(caps) > 5 {
		t.Errorf("CapabilityBoundingSet %v gives more than the dataplane needs", caps)
	}

	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		testutil.Unavailable(t, "systemd-analyze is not installed (scripts/deps installs it)")
	}
	dir := t.TempDir()
	local := strings.Replace(string(unit), "ExecStart=/usr/local/bin/qjump", "ExecStart="+testutil.QjumpBinary(t), 1)
	path := filepath.Join(dir, "qjump-agent.service")
	if err := os.WriteFile(path, []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	// verify exits 0 on unknown keys and only warns: any line about the unit is a failure.
	var complaints []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "qjump-agent.service") {
			complaints = append(complaints, line)
		}
	}
	if err != nil || len(complaints) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, strings.Join(complaints, "\n"))
	}
}

func containsCap(caps []corev1.Capability, want corev1.Capability) bool {
	for _, c := range caps {
		if c == want {
			return true
		}
	}
	return false
}

func contains(list []string, want string) bool {
	for _, s := range list {
		if s == want {
			return true
		}
	}
	return false
}

func stripComments(doc []byte) []byte {
	var b bytes.Buffer
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			fmt.Fprintln(&b, line)
		}
	}
	return b.Bytes()
}

func bufioReader(data []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(data)) }
