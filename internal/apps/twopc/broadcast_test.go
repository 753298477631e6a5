package twopc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestMain removes the qjump binary the namespace test built.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// TestBroadcastAcrossNamespaces runs `qjump 2pc` as the testbed does, coordinator and server in two
// namespaces: over qjump the coordinator's single broadcast datagram reaches a server listening on
// the wildcard address, and its unicast replies come back.
func TestBroadcastAcrossNamespaces(t *testing.T) {
	testutil.RequirePriv(t, "the broadcast test (network namespaces)")
	k := os.Getpid() % 1000
	p, err := nspair.New(context.Background(), fmt.Sprintf("qj2pc%d", k),
		fmt.Sprintf("198.19.%d.1", k%250), fmt.Sprintf("198.19.%d.2", k%250))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Remove()
	bin, dir := testutil.QjumpBinary(t), t.TempDir()
	ready, report := filepath.Join(dir, "server.ready"), filepath.Join(dir, "server.json")
	srv := exec.Command("ip", "netns", "exec", p.B, bin, "2pc", "server", "--transport", "qjump", "--listen", ":7000",
		"--for", "30s", "--ready", ready, "--out", report)
	var srvOut bytes.Buffer
	srv.Stdout, srv.Stderr = &srvOut, &srvOut
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("server not ready within 10s: %s", srvOut.String())
		}
	}
	before := broadcastsIn(t, p.B)
	out, err := exec.Command("ip", "netns", "exec", p.A, bin, "2pc", "coordinator", "--transport", "qjump",
		"--servers", p.AddrB+":7000", "--broadcast", fmt.Sprintf("198.19.%d.255:7000", k%250),
		"--epoch", "50ms", "--count", "200").Output()
	if err != nil {
		t.Fatalf("coordinator: %v", err)
	}
	s, err := ReadSummary(strings.NewReader(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	if s.Committed != 200 || len(s.Failures) != 0 {
		t.Fatalf("summary %+v; want 200 commits over broadcast", s)
	}
	n := broadcastsIn(t, p.B) - before
	t.Logf("%d broadcast packets in for 200 transactions", n)
	if n < 400 {
		t.Errorf("the server's namespace received %d broadcast packets; want a PREPARE and a DECIDE per commit", n)
	}
	_ = srv.Process.Signal(os.Interrupt)
	_ = srv.Wait()
	b, err := os.ReadFile(report)
	if err != nil || !strings.Contains(string(b), `"committed":200`) {
		t.Errorf("server report %s, %v; want 200 commits", b, err)
	}
}

// broadcastsIn is the kernel's count of IP broadcast packets received in namespace ns.
func broadcastsIn(t *testing.T, ns string) int {
	t.Helper()
	b, err := exec.Command("ip", "netns", "exec", ns, "cat", "/proc/net/netstat").Output()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "IpExt:" {
			continue
		}
		if names == nil {
			names = f
			continue
		}
		for i, n := range names {
			if n == "InBcastPkts" && i < len(f) {
				v, _ := strconv.Atoi(f[i])
				return v
			}
		}
	}
	t.Fatal("no IpExt InBcastPkts in /proc/net/netstat")
	return 0
}
