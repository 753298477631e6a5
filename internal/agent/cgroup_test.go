package agent_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

const cgroupConfig = `hosts: 2
rate: 100M
factors: {7: 1, 3: 1, 0: unlimited}
agent:
  interfaces: [eth0]
`

// sendAt7 sends count UDP datagrams at socket priority 7 from a process in the cgroup at dir,
// inside namespace ns: a program that asks for the guaranteed level, as a tenant's might.
func sendAt7(t *testing.T, dir, ns, to string, count int) {
	t.Helper()
	py := fmt.Sprintf(`import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, 7)
for _ in range(%d):
    s.sendto(b"x" * 100, (%q, 9))
`, count, to)
	script := fmt.Sprintf(`echo $$ > %s/cgroup.procs && exec nsenter --net=/run/netns/%s python3 -c '%s'`, dir, ns, py)
	if out, err := exec.Command("sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("send from %s: %v: %s", dir, err, out)
	}
}

// sentPackets is level l's sent packets on eth0 in ns.
func sentPackets(t *testing.T, bin, ns string, l int) uint64 {
	t.Helper()
	argv := testbed.InNS(ns, bin, "status", "--json", "--dev", "eth0")
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	var st struct {
		Devices []struct {
			Levels []struct {
				Level       int    `json:"level"`
				SentPackets uint64 `json:"sent_packets"`
			}
		}
	}
	if err := json.Unmarshal(out, &st); err != nil || len(st.Devices) != 1 {
		t.Fatalf("status: %v\n%s", err, out)
	}
	for _, lv := range st.Devices[0].Levels {
		if lv.Level == l {
			return lv.SentPackets
		}
	}
	return 0
}

// TestCeilingHoldsBelowTheCgroup gives a cgroup a ceiling in the file and checks, with real
// packets, that it holds for its own sockets, for a child cgroup that existed before the agent
// and for a grandchild made while the agent runs (as a pod's containers are), and that removing
// the rule from the file lifts it everywhere.
func TestCeilingHoldsBelowTheCgroup(t *testing.T) {
	testutil.RequirePriv(t, "cgroup ceilings")
	bin := testutil.QjumpBinary(t)
	if _, err := exec.LookPath("python3"); err != nil {
		testutil.Unavailable(t, "python3 is not installed")
	}
	root, err := host.CgroupMount()
	if err != nil {
		testutil.Unavailable(t, err.Error())
	}
	pair := qjumpPair(t, "qjagcg", "198.19.77.1", "198.19.77.2")
	tenant := filepath.Join(root, fmt.Sprintf("qjump-agent-test-%d", os.Getpid()))
	pod, ctr := filepath.Join(tenant, "pod"), filepath.Join(tenant, "pod", "ctr")
	if err := os.MkdirAll(pod, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, d := range []string{ctr, pod, tenant} {
			_ = os.Remove(d)
		}
	})

	config := filepath.Join(t.TempDir(), "cluster.yaml")
	rule := fmt.Sprintf("  cgroups:\n    - {path: %s, level: 3, max_level: 3}\n", tenant)
	writeFile(t, config, cgroupConfig+rule)
	a := startAgent(t, bin, pair.A, config, "127.0.0.1:19782", t.TempDir())
	a.waitReady(10 * time.Second)
	waitMetric(t, a, "qjump_agent_cgroups_assigned", 1)
	if err := os.Mkdir(ctr, 0o755); err != nil { // a container started after the agent
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)

	// 5 datagrams of 142 bytes on the wire fit one level's budget of 1500 bytes: none is policed.
	const burst = 5
	for _, dir := range []string{tenant, pod, ctr} {
		at7, at3 := sentPackets(t, bin, pair.A, 7), sentPackets(t, bin, pair.A, 3)
		sendAt7(t, dir, pair.A, pair.AddrB, burst)
		if d7, d3 := sentPackets(t, bin, pair.A, 7)-at7, sentPackets(t, bin, pair.A, 3)-at3; d7 != 0 || d3 != burst {
			t.Errorf("%s: priority 7 under a ceiling of 3 sent %d packets at level 7, %d at level 3; want 0 and 5",
				dir, d7, d3)
		}
	}

	writeFile(t, config, cgroupConfig)
	waitMetric(t, a, "qjump_agent_cgroups_assigned", 0)
	at7 := sentPackets(t, bin, pair.A, 7)
	sendAt7(t, ctr, pair.A, pair.AddrB, burst)
	if d7 := sentPackets(t, bin, pair.A, 7) - at7; d7 != burst {
		t.Errorf("rule removed: the grandchild sent %d of 5 packets at level 7; its ceiling stayed", d7)
	}
	a.stop()
}

func waitMetric(t *testing.T, a *runningAgent, series string, want float64) {
	t.Helper()
	deadline := time.Now().Add(applyWithin)
	for {
		if v, ok := a.metric(series); ok && v == want {
			return
		}
		if time.Now().After(deadline) {
			v, _ := a.metric(series)
			t.Fatalf("%s = %v, want %v within %s", series, v, want, applyWithin)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRestartedServiceIsPutBackAtOnce: a service restart removes the service's cgroup and makes a
// new one, with a new id, that nothing is attached to. The agent watches where the file's
// cgroups are made and assigns the new one at once; before, it did so at the next resync, up to
// 30 s during which the restarted service ran on no level.
func TestRestartedServiceIsPutBackAtOnce(t *testing.T) {
	a, service := agentWithService(t, "qjagrs", "198.19.81", "127.0.0.1:19786", "restart")
	defer a.stop()

	// The restart: the old cgroup goes, a new one is made under the same name.
	if err := os.Remove(service); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(service, 0o755); err != nil {
		t.Fatal(err)
	}
	id, err := host.CgroupID(service)
	if err != nil {
		t.Fatal(err)
	}
	state, err := host.StateDir()
	if err != nil {
		t.Fatal(err)
	}
	pin := filepath.Join(state, "cgroups", fmt.Sprint(id), "sock_create")
	deadline := time.Now().Add(3 * time.Second)
	for {
		if _, err := os.Stat(pin); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the restarted service's new cgroup (id %d) is not assigned 3 s after it was made", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRemovedCgroupIsAbsentNotAssigned: a service of the file that stops (its cgroup removed) is
// counted as absent, and no longer as assigned: each cgroup of the file in one gauge, so that
// assigned plus absent is what the file names.
func TestRemovedCgroupIsAbsentNotAssigned(t *testing.T) {
	a, service := agentWithService(t, "qjagab", "198.19.83", "127.0.0.1:19788", "absent")
	defer a.stop()
	if err := os.Remove(service); err != nil {
		t.Fatal(err)
	}
	waitMetric(t, a, "qjump_agent_cgroups_absent", 1)
	waitMetric(t, a, "qjump_agent_cgroups_assigned", 0)
}

// agentWithService starts an agent in a namespace pair of its own (name, subnet .1 and .2) whose
// file puts a service's cgroup, made for the test, on level 3, and waits until it is assigned.
func agentWithService(t *testing.T, name, subnet, listen, service string) (*runningAgent, string) {
	t.Helper()
	testutil.RequirePriv(t, "cgroup programs")
	bin := testutil.QjumpBinary(t)
	root, err := host.CgroupMount()
	if err != nil {
		testutil.Unavailable(t, err.Error())
	}
	pair := qjumpPair(t, name, subnet+".1", subnet+".2")
	path := filepath.Join(root, fmt.Sprintf("qjump-agent-%s-%d.service", service, os.Getpid()))
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(path) })
	config := clusterFile(t, cgroupConfig+fmt.Sprintf("  cgroups:\n    - {path: %s, level: 3}\n", path))
	a := startAgent(t, bin, pair.A, config, listen, t.TempDir())
	a.waitReady(10 * time.Second)
	waitMetric(t, a, "qjump_agent_cgroups_assigned", 1)
	return a, path
}
