package agent_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/qjump-net/qjump/internal/agent"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestPodLevelForReal runs the agent in this process with client-go's fake clientset as the API
// server and a kubelet-shaped cgroup tree in the real cgroup v2 hierarchy: an annotated pod's
// containers, including one started after the pod was assigned, send at the pod's ceiling, and
// deleting the pod lifts it.
func TestPodLevelForReal(t *testing.T) {
	testutil.RequirePriv(t, "pod cgroup assignments")
	bin := testutil.QjumpBinary(t)
	root, err := host.CgroupMount()
	if err != nil {
		testutil.Unavailable(t, err.Error())
	}
	pair := qjumpPair(t, "qjagpd", "198.19.79.1", "198.19.79.2")
	// QJump on the pair, by hand: the in-process agent below runs in the test's namespace and
	// manages no interface; the ceilings it sets are shared by every namespace's dataplane.
	config := clusterFile(t, strings.Replace(cgroupConfig, "[eth0]", "[qjagnomatch*]", 1))
	argv := testbed.InNS(pair.A, bin, "up", "--dev", "eth0", "--config", config)
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("up: %v: %s", err, out)
	}

	const uid = "0a1b2c3d-0000-4000-8000-00000000beef"
	kube := filepath.Join(root, fmt.Sprintf("qjump-agent-pods-%d", os.Getpid()))
	podDir := filepath.Join(kube, "kubepods", "burstable", "pod"+uid)
	first, later := filepath.Join(podDir, "sandbox"), filepath.Join(podDir, "app")
	if err := os.MkdirAll(first, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, d := range []string{later, first, podDir, filepath.Dir(podDir), filepath.Dir(filepath.Dir(podDir)), kube} {
			_ = os.Remove(d)
		}
	})

	client := fake.NewClientset(&corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "tenant", Namespace: "default", UID: uid,
			Annotations: map[string]string{agent.AnnotationLevel: "3", agent.AnnotationMaxLevel: "3"}},
		Spec:   corev1.PodSpec{NodeName: "node-a"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, QOSClass: corev1.PodQOSBurstable},
	})
	a, err := agent.New(agent.Options{ConfigPath: config, Listen: "127.0.0.1:0", StateDir: t.TempDir(),
		CgroupRoot: kube, DownOnExit: true, Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Pods: &agent.PodOptions{Pods: client.CoreV1().Pods(""), Node: "node-a"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent: %v", err)
		}
	}()

	const burst = 5
	atLevels := func(dir string) (d7, d3 uint64) {
		at7, at3 := sentPackets(t, bin, pair.A, 7), sentPackets(t, bin, pair.A, 3)
		sendAt7(t, dir, pair.A, pair.AddrB, burst)
		return sentPackets(t, bin, pair.A, 7) - at7, sentPackets(t, bin, pair.A, 3) - at3
	}
	waitFor(t, "the pod's ceiling on its first container", func() bool { _, d3 := atLevels(first); return d3 == burst })
	if err := os.Mkdir(later, 0o755); err != nil { // a container started after the assignment
		t.Fatal(err)
	}
	waitFor(t, "the pod's ceiling on a container started later", func() bool { _, d3 := atLevels(later); return d3 == burst })
	if d7, _ := atLevels(podDir); d7 != 0 {
		t.Errorf("the pod's own cgroup sent %d packets at level 7 under its ceiling of 3", d7)
	}

	if err := client.CoreV1().Pods("default").Delete(ctx, "tenant", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the ceiling lifted after the pod was deleted", func() bool { d7, _ := atLevels(later); return d7 == burst })
}

// waitFor polls cond for up to the agent's one-second promise (plus a sender's start-up).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 2 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
