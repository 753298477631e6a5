package agent_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testbed/tbtest"
)

// The cluster file every host's agent reads: the testbed's n and R, level 7 guaranteed.
const clusterConfig = `hosts: 3
rate: 100M
factors: {7: %d, 0: unlimited}
agent:
  interfaces: [eth0]
`

const agentPort = "9781"

// applyWithin is the promise: a change of the file or of an interface is applied within
// a second.
const applyWithin = time.Second

// cluster is a testbed whose every host runs an agent on one shared file.
type cluster struct {
	t      *testing.T
	bin    string
	tb     *testbed.Testbed
	config string
	agents []*runningAgent // by host, 0-based
	dirs   []string        // state directories
}

func newCluster(t *testing.T) *cluster {
	bin := tbtest.RequireTools(t)
	c := testbed.DefaultConfig(3)
	c.Prefix = tbtest.Prefix(t)
	tb, err := testbed.Up(context.Background(), c)
	if err != nil {
		t.Fatalf("testbed up: %v", err)
	}
	t.Cleanup(func() { _ = tb.Down() })
	cl := &cluster{t: t, bin: bin, tb: tb, config: filepath.Join(t.TempDir(), "cluster.yaml")}
	writeFile(t, cl.config, fmt.Sprintf(clusterConfig, 1))
	for i := 1; i <= c.Hosts; i++ {
		cl.dirs = append(cl.dirs, t.TempDir())
		cl.agents = append(cl.agents, cl.start(i))
	}
	for _, a := range cl.agents {
		a.waitReady(10 * time.Second)
	}
	return cl
}

func (cl *cluster) start(host int) *runningAgent {
	listen := cl.tb.Names.HostAddr(host).String() + ":" + agentPort
	return startAgent(cl.t, cl.bin, cl.tb.Names.HostNS(host), cl.config, listen, cl.dirs[host-1])
}

// eachWithin waits until cond holds for every host's agent, and fails after d.
func (cl *cluster) eachWithin(d time.Duration, what string, cond func(host int, a *runningAgent) bool) time.Duration {
	cl.t.Helper()
	start := time.Now()
	for i, a := range cl.agents {
		for !cond(i+1, a) {
			if time.Since(start) > d {
				cl.t.Fatalf("host %d: %s: not within %s", i+1, what, d)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return time.Since(start)
}

// TestClusterOfAgents runs an agent in every testbed host on one shared file and proves what an
// operator relies on: a change reaches every host within a second, an invalid one reaches none,
// a crashed agent leaves QJump limiting, a restarted one adopts without a gap, an interface that
// comes back gets QJump again, and a real Prometheus server scrapes the kernel's own counters.
func TestClusterOfAgents(t *testing.T) {
	cl := newCluster(t)
	for i := range cl.agents {
		if st := status(t, cl.bin, cl.tb.Names.HostNS(i+1), "eth0"); !st.Attached || st.Generation != 1 {
			t.Fatalf("host %d after start: %+v", i+1, st)
		}
	}

	// An edit: every host reloads (generation 1 → 2) within a second.
	writeFile(t, cl.config, fmt.Sprintf(clusterConfig, 2))
	took := cl.eachWithin(applyWithin, "generation 2 after the edit", func(_ int, a *runningAgent) bool {
		v, _ := a.metric(`qjump_config_generation{interface="eth0"}`)
		return v == 2
	})
	t.Logf("edit applied on all %d hosts in %s", len(cl.agents), took.Round(time.Millisecond))

	// An invalid edit: counted everywhere, applied nowhere.
	writeFile(t, cl.config, fmt.Sprintf(clusterConfig, 2)+"dscp: {7: 64}\n")
	cl.eachWithin(applyWithin, "invalid edit counted", func(_ int, a *runningAgent) bool {
		v, _ := a.metric(`qjump_agent_config_errors_total{stage="invalid"}`)
		return v == 1
	})
	for i, a := range cl.agents {
		if v, _ := a.metric(`qjump_config_generation{interface="eth0"}`); v != 2 {
			t.Errorf("host %d: generation %v after an invalid edit, want 2 (the running configuration kept)", i+1, v)
		}
		if v, _ := a.metric(`qjump_agent_config_last_load_successful`); v != 0 {
			t.Errorf("host %d: last load successful %v after an invalid edit", i+1, v)
		}
		if code, _, _ := a.get("/readyz"); code != 200 {
			t.Errorf("host %d: not ready after an invalid edit: the old configuration still runs everywhere", i+1)
		}
	}
	if data, _ := exec.Command("cat", cl.agents[0].log).Output(); !strings.Contains(string(data), "dscp[7]") {
		t.Errorf("the agent's log does not name the field dscp[7]:\n%s", data)
	}
	writeFile(t, cl.config, fmt.Sprintf(clusterConfig, 2))

	cl.crashAndRestart()
	cl.interfaceComesBack(3)
	cl.prometheusScrapes()
}

// crashAndRestart kills host 1's agent with SIGKILL while a level-7 flow offers more than the
// level's rate, restarts it while the flow goes on, and counts on the receiver that the level
// never got more than its budget: QJump stayed attached and limiting throughout.
func (cl *cluster) crashAndRestart() {
	t := cl.t
	h1, h2 := cl.tb.Names.HostNS(1), cl.tb.Names.HostNS(2)
	before := status(t, cl.bin, h1, "eth0")
	flow, err := newUDPFlow(h1, h2, cl.tb.Names.HostAddr(2).String(), 7)
	if err != nil {
		t.Fatal(err)
	}
	var sent time.Duration
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); sent = flow.run(3*time.Second, 10) }() // 80 Mb/s offered
	time.Sleep(500 * time.Millisecond)
	cl.agents[0].kill9()
	time.Sleep(700 * time.Millisecond)
	if st := status(t, cl.bin, h1, "eth0"); !st.Attached || st.Generation != before.Generation {
		t.Errorf("after kill -9: attached %v, generation %d; want still attached at %d", st.Attached, st.Generation, before.Generation)
	}
	cl.agents[0] = cl.start(1)
	cl.agents[0].waitReady(5 * time.Second)
	wg.Wait()
	flow.close()

	after := status(t, cl.bin, h1, "eth0")
	if after.Generation != before.Generation || !after.Attached {
		t.Errorf("restarted agent changed the dataplane: generation %d → %d, attached %v; want it adopted as it was",
			before.Generation, after.Generation, after.Attached)
	}
	if v, _ := cl.agents[0].metric(`qjump_agent_interface_actions_total{action="adopted"}`); v < 1 {
		t.Errorf("restarted agent did not adopt eth0 (adopted %v)", v)
	}
	if v, ok := cl.agents[0].metric(`qjump_agent_interface_actions_total{action="up"}`); ok && v > 0 {
		t.Errorf("restarted agent brought eth0 up anew (%v times) instead of adopting it", v)
	}
	// Level 7 may send f·P = 2·1500 bytes per epoch E = m·n·P·8/R = 720 µs: two of the flow's
	// 1042-byte frames (1000 bytes of payload each).
	const perEpoch, epoch = 2 * payload, 720 * time.Microsecond
	bound := uint64(sent/epoch+2) * perEpoch
	got := flow.received.Load()
	_, dropsBefore := before.level(7)
	_, dropsAfter := after.level(7)
	t.Logf("level 7 during kill -9 and restart: %d bytes in %s (bound %d, offered %d), %d drops",
		got, sent.Round(time.Millisecond), bound, uint64(sent/time.Millisecond)*10*payload, dropsAfter-dropsBefore)
	if got > bound {
		t.Errorf("level 7 delivered %d bytes in %s, more than its budget allows (%d): it ran unlimited for a while", got, sent, bound)
	}
	if got < bound/3 || dropsAfter == dropsBefore {
		t.Errorf("level 7 delivered %d bytes (bound %d) with %d drops: the flow did not exercise the limiter", got, bound, dropsAfter-dropsBefore)
	}
}

// interfaceComesBack deletes host's interface and makes it again: the agent removes the pins of
// the one that went and brings QJump up on the new one within a second.
func (cl *cluster) interfaceComesBack(host int) {
	t := cl.t
	ns, sw := cl.tb.Names.HostNS(host), cl.tb.Names.SwitchNS()
	must(t, "ip", "-n", ns, "link", "del", "eth0")
	deadline := time.Now().Add(applyWithin)
	for {
		argv := testbed.InNS(ns, cl.bin, "status", "--json")
		out, _ := exec.Command(argv[0], argv[1:]...).Output()
		if strings.Contains(string(out), `"devices": []`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pins of the deleted eth0 still there after %s:\n%s", applyWithin, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	peer := cl.tb.Config.Prefix + "-x"
	// The testbed's MAC (its neighbours are static): 02:71:6a:00 and the host number.
	mac := fmt.Sprintf("02:71:6a:00:%02x:%02x", host>>8&0xff, host&0xff)
	must(t, "ip", "link", "add", "eth0", "netns", ns, "address", mac, "type", "veth", "peer", "name", peer, "netns", sw)
	made := time.Now()
	for {
		argv := testbed.InNS(ns, cl.bin, "status", "--json", "--dev", "eth0")
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		if err == nil && strings.Contains(string(out), `"attached": true`) && strings.Contains(string(out), `"generation": 1`) {
			break
		}
		if time.Since(made) > applyWithin {
			t.Fatalf("re-created eth0 of host %d has no QJump after %s:\n%s", host, applyWithin, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("re-created eth0 of host %d up with QJump after %s", host, time.Since(made).Round(time.Millisecond))
	// The testbed's address and neighbours went with the old interface: put them back for the
	// scrapes that follow.
	n := cl.tb.Names
	must(t, "ip", "-n", ns, "addr", "add", fmt.Sprintf("%s/%d", n.HostAddr(host), testbed.HostPrefixLen), "dev", "eth0")
	must(t, "ip", "-n", ns, "link", "set", "eth0", "up")
	must(t, "ip", "-n", sw, "link", "set", peer, "master", n.Bridge())
	must(t, "ip", "-n", sw, "link", "set", peer, "up")
	cl.agents[host-1].waitReady(2 * time.Second)
}
