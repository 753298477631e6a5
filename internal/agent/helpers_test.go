package agent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vishvananda/netns"

	"github.com/qjump-net/qjump/internal/testbed"
)

// runningAgent is `qjump agent` started by a test inside a network namespace.
type runningAgent struct {
	t      *testing.T
	ns     string
	listen string
	cmd    *exec.Cmd
	log    string // its stderr
}

// startAgent runs the real binary in ns, as a host would under systemd. It is killed when the test
// ends, if still running.
func startAgent(t *testing.T, bin, ns, config, listen, stateDir string, extra ...string) *runningAgent {
	t.Helper()
	return startAgentWith(t, testbed.InNS, bin, ns, config, listen, stateDir, extra...)
}

// ipNetnsExec prefixes a command as an operator's `ip netns exec` would: it remounts /sys, so the
// command sees no cgroup v2 mount, as an agent in a pod sees none of the host's. It execs the
// command: the process started is the agent.
func ipNetnsExec(ns string, argv ...string) []string {
	return append([]string{"ip", "netns", "exec", ns}, argv...)
}

// startAgentWith is startAgent with the command put in ns by inNS (testbed.InNS, ipNetnsExec).
func startAgentWith(t *testing.T, inNS func(string, ...string) []string, bin, ns, config, listen, stateDir string,
	extra ...string) *runningAgent {
	t.Helper()
	log := filepath.Join(t.TempDir(), "agent-"+ns+".log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	args := append([]string{bin, "agent", "--config", config, "--listen", listen, "--state-dir", stateDir}, extra...)
	argv := inNS(ns, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &runningAgent{t: t, ns: ns, listen: listen, cmd: cmd, log: log}
	t.Cleanup(func() {
		if a.cmd.ProcessState == nil {
			_ = a.cmd.Process.Kill()
			_, _ = a.cmd.Process.Wait()
		}
		if t.Failed() {
			data, _ := os.ReadFile(log)
			t.Logf("log of the agent in %s:\n%s", ns, data)
		}
	})
	return a
}

// stop sends SIGTERM and waits for the agent to exit.
func (a *runningAgent) stop() {
	a.t.Helper()
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- a.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			a.t.Errorf("agent in %s exited with %v after SIGTERM", a.ns, err)
		}
	case <-time.After(5 * time.Second):
		a.t.Errorf("agent in %s did not exit within 5 s of SIGTERM", a.ns)
		_ = a.cmd.Process.Kill()
	}
}

// kill9 kills the agent as a crash or the OOM killer would: no chance to clean up.
func (a *runningAgent) kill9() {
	_ = a.cmd.Process.Kill()
	_, _ = a.cmd.Process.Wait()
}

func (a *runningAgent) get(path string) (int, string, error) {
	resp, err := nsClient(a.ns).Get("http://" + a.listen + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// waitReady polls /readyz until it answers 200.
func (a *runningAgent) waitReady(within time.Duration) {
	a.t.Helper()
	deadline := time.Now().Add(within)
	for {
		code, body, err := a.get("/readyz")
		if code == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("agent in %s not ready within %s: %d %q %v", a.ns, within, code, body, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitListening waits for the agent's "agent running" line and takes the address it logs as the
// one to query: the address actually bound, which differs from --listen's when its port is 0.
func (a *runningAgent) waitListening(within time.Duration) {
	a.t.Helper()
	deadline := time.Now().Add(within)
	for {
		data, _ := os.ReadFile(a.log)
		if _, line, ok := strings.Cut(string(data), `msg="agent running"`); ok {
			line, _, _ = strings.Cut(line, "\n")
			if _, addr, ok := strings.Cut(line, " listen="); ok {
				a.listen, _, _ = strings.Cut(addr, " ")
				return
			}
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("agent in %s not running within %s:\n%s", a.ns, within, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// metric reads one series from /metrics: name with the labels given as `k="v"` pairs, in the
// order Prometheus prints them (sorted by label name).
func (a *runningAgent) metric(series string) (float64, bool) {
	_, body, err := a.get("/metrics")
	if err != nil {
		return 0, false
	}
	return findSeries(body, series)
}

func findSeries(exposition, series string) (float64, bool) {
	sc := bufio.NewScanner(strings.NewReader(exposition))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if ok && name == series {
			v, err := strconv.ParseFloat(value, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// nsClient is an HTTP client whose connections start in network namespace ns: the agents listen
// inside the testbed's hosts, which the test's own namespace has no route to.
func nsClient(ns string) *http.Client {
	return &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var conn net.Conn
			err := inNetns(ns, func() error {
				var err error
				conn, err = (&net.Dialer{}).DialContext(ctx, network, addr)
				return err
			})
			return conn, err
		}}}
}

// inNetns runs f on a thread in network namespace ns: sockets f makes stay in ns.
func inNetns(ns string, f func() error) error {
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer orig.Close()
	h, err := netns.GetFromName(ns)
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer h.Close()
	if err := netns.Set(h); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	ferr := f()
	if err := netns.Set(orig); err != nil {
		return err // the thread stays locked and dies with its goroutine
	}
	runtime.UnlockOSThread()
	return ferr
}

// deviceStatus is the part of `qjump status --json` the tests compare against.
type deviceStatus struct {
	Device     string `json:"device"`
	Attached   bool   `json:"attached"`
	EgressTree bool   `json:"egress_tree"`
	Generation uint64 `json:"generation"`
	Agent      *struct {
		Pid      int    `json:"pid"`
		StateDir string `json:"state_dir"`
	} `json:"agent"`
	Levels []struct {
		Level          int    `json:"level"`
		SentBytes      uint64 `json:"sent_bytes"`
		DroppedPackets uint64 `json:"dropped_packets"`
	} `json:"levels"`
}

// status runs `qjump status --json` in ns and returns its one device.
func status(t *testing.T, bin, ns, dev string) deviceStatus {
	t.Helper()
	argv := testbed.InNS(ns, bin, "status", "--json", "--dev", dev)
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	if err != nil {
		t.Fatalf("status in %s: %v", ns, err)
	}
	var st struct{ Devices []deviceStatus }
	if err := json.Unmarshal(out, &st); err != nil || len(st.Devices) != 1 {
		t.Fatalf("status in %s: %v\n%s", ns, err, out)
	}
	return st.Devices[0]
}

func (d deviceStatus) level(l int) (sentBytes, droppedPackets uint64) {
	for _, lv := range d.Levels {
		if lv.Level == l {
			return lv.SentBytes, lv.DroppedPackets
		}
	}
	return 0, 0
}

// clusterFile writes content to a cluster.yaml of the test's own and returns its path.
func clusterFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	writeFile(t, path, content)
	return path
}

// writeFile replaces path atomically, as editors and configuration management do.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, argv ...string) {
	t.Helper()
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(argv, " "), err, out)
	}
}
