package apputil

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/testutil"
)

// These tests put programs on levels with the dataplane up in a pair of network namespaces and
// read what it counted: the proof that `run` and `assign` put traffic on the right level.

// nsPair is two namespaces joined by a veth pair, QJump up on a's end.
type nsPair struct {
	a, dev string // namespace and interface that send
	b      string // the other namespace
	peer   string // b's address
}

const nsFactors = "7=1,5=10,3=10,2=10,0=unlimited"

func newNSPair(t *testing.T) nsPair {
	t.Helper()
	testutil.RequirePriv(t, "network namespaces and the dataplane")
	if _, err := exec.LookPath("ip"); err != nil {
		testutil.Unavailable(t, "the ip command (iproute2) is needed")
	}
	sfx := make([]byte, 3)
	rand.Read(sfx)
	// IPv6 is off in both: neighbour discovery and MLD leave at priority 7 (TC_PRIO_CONTROL),
	// which would be counted on level 7 at random moments; these tests count IPv4 only.
	pair, err := nspair.New(context.Background(), "qjap-"+hex.EncodeToString(sfx), "198.18.0.1", "198.18.0.2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pair.Remove)
	return nsPair{a: pair.A, dev: "eth0", b: pair.B, peer: pair.AddrB}
}

// up starts the dataplane on the sending end; it is taken down before the namespaces go, so no
// pinned state outlives the test.
func (p nsPair) up(t *testing.T, extra ...string) {
	t.Helper()
	args := append([]string{"up", "--dev", p.dev, "--hosts", "2", "--rate", "1G", "--factors", nsFactors}, extra...)
	if o := p.qjump(t, args...); o.code() != 0 {
		t.Fatalf("qjump up: exit %d, stderr %q", o.code(), o.stderr)
	}
	t.Cleanup(func() { p.qjump(t, "down", "--dev", p.dev) })
}

// qjump runs qjump inside namespace a, the way a user would.
func (p nsPair) qjump(t *testing.T, args ...string) outcome {
	t.Helper()
	b := programs(t)
	return runQjump(t, nil, append([]string{"netns", "exec", p.a, b.qjump}, args...)...)
}

// sentPerLevel reads `qjump status --json`: packets sent per level on the device.
func (p nsPair) sentPerLevel(t *testing.T) map[int]uint64 {
	t.Helper()
	b := programs(t)
	status := exec.Command("ip", "netns", "exec", p.a, b.qjump, "status", "--dev", p.dev, "--json")
	status.Env = qjumpEnv()
	out, err := status.Output()
	if err != nil {
		t.Fatalf("qjump status: %v", err)
	}
	st := testutil.DecodeStatus(t, out)
	if len(st.Devices) != 1 {
		t.Fatalf("qjump status --json: %d devices, want 1\n%s", len(st.Devices), out)
	}
	sent := map[int]uint64{}
	for _, l := range st.Devices[0].Levels {
		sent[l.Level] = l.SentPackets
	}
	return sent
}

// expectCounted checks that the n datagrams went out at level want and none at another level
// from 1 up (ARP and IPv6 neighbour discovery carry priority 0: the default level).
func expectCounted(t *testing.T, sent map[int]uint64, want int, n uint64) {
	t.Helper()
	for l := 1; l < 8; l++ {
		if l == want && sent[l] != n || l != want && sent[l] != 0 {
			t.Errorf("sent per level %v: want %d packets at level %d and none at other levels above 0", sent, n, want)
			return
		}
	}
}

func TestRunIsCountedAtItsLevel(t *testing.T) {
	p := newNSPair(t)
	p.up(t)
	b := programs(t)
	o := p.qjump(t, runArgs(ModePreload, "5", nil, b.cprobe, "send", p.peer, "9", "20")...)
	expectValues(t, o, map[string]string{"sent": "20 5"})
	expectCounted(t, p.sentPerLevel(t), 5, 20)
}

// A program in a cgroup with --max-level 3 that gives its socket priority 7 itself is sent at 3.
func TestMaxLevelClampsProgramsOwnPriority(t *testing.T) {
	p := newNSPair(t)
	p.up(t)
	b := programs(t)
	o := p.qjump(t, runArgs(ModeCgroup, "2", []string{"--max-level", "3"}, b.goprobe, "send", p.peer+":9", "20", "7")...)
	expectValues(t, o, map[string]string{"sent": "20 7"}) // the socket says 7...
	expectCounted(t, p.sentPerLevel(t), 3, 20)            // ...the dataplane sends at 3
}

// --sndbuf auto reads the level's budget from the dataplane that is up, and says what it needs
// when none is.
func TestSndBufAutoFromActiveConfig(t *testing.T) {
	p := newNSPair(t)
	b := programs(t)
	o := p.qjump(t, runArgs(ModePreload, "5", []string{"--sndbuf", "auto"}, b.cprobe)...)
	if o.code() != 2 || !strings.Contains(o.stderr, "not up") || !strings.Contains(o.stderr, "--config") {
		t.Errorf("--sndbuf auto with nothing up: exit %d, stderr %q; want 2 and what it needs", o.code(), o.stderr)
	}
	p.up(t)
	// Level 5 at factor 10, P = 1538B (up's default: one full frame of the 1500-MTU veth on the
	// wire): 2·10·1538 = 30760 bytes, which the kernel doubles.
	expectValues(t, p.qjump(t, runArgs(ModePreload, "5", []string{"--sndbuf", "auto"}, b.cprobe)...),
		map[string]string{"sndbuf": "61520"})
}

// The definition of done: memcached in preload mode and a static Go server in cgroup mode
// answer a client in the other namespace, and every packet of those connections leaves at the
// program's level, handshake (from the listener) and replies (from the accepted socket) alike.
func TestServersAnswerAtTheirLevel(t *testing.T) {
	b := programs(t)
	if _, err := exec.LookPath("memcached"); err != nil {
		testutil.Unavailable(t, "memcached is needed (scripts/deps installs it)")
	}
	for _, c := range []struct {
		name  string
		level int
		run   []string
		port  string
		ask   string
	}{
		{"memcached/preload", 5, runArgs(ModePreload, "5", nil, "memcached", "-u", "nobody", "-U", "0", "-l", "198.18.0.1", "-p", "11311"),
			"11311", "set k 0 0 5\r\nqjump\r\nget k\r\nquit\r\n"},
		{"static-go/cgroup", 3, runArgs(ModeCgroup, "3", nil, b.goprobe, "serve", "198.18.0.1:11312"), "11312", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newNSPair(t)
			p.up(t)
			server := exec.Command("ip", append([]string{"netns", "exec", p.a, b.qjump}, c.run...)...)
			server.Env = qjumpEnv()
			if err := server.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { server.Process.Signal(syscall.SIGTERM); server.Wait() })
			reply := p.ask(t, "198.18.0.1", c.port, c.ask)
			if !strings.Contains(reply, "qjump") && !strings.Contains(reply, "hello") {
				t.Fatalf("no answer from the server: %q", reply)
			}
			sent := p.sentPerLevel(t)
			t.Logf("packets sent per level: %v", sent)
			for l := 1; l < 8; l++ {
				if (l == c.level) != (sent[l] > 0) {
					t.Errorf("sent per level %v: want the connection at level %d only", sent, c.level)
					break
				}
			}
		})
	}
}

// ask connects from namespace b (the peer of a) to addr:port, sends what, and returns the reply,
// retrying for a few seconds while the server starts.
func (p nsPair) ask(t *testing.T, addr, port, what string) string {
	t.Helper()
	b := programs(t)
	script := `import socket, sys, time
for _ in range(100):
    try:
        s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2)
        break
    except OSError:
        time.sleep(0.05)
s.sendall(sys.argv[3].encode())
out = b""
while True:
    d = s.recv(4096)
    if not d:
        break
    out += d
print(out.decode())`
	out, err := exec.Command("ip", "netns", "exec", p.b, b.python, "-c", script, addr, port, what).CombinedOutput()
	if err != nil {
		t.Fatalf("client: %v\n%s", err, out)
	}
	return string(out)
}

// run warns when the dataplane would not count the level's priority as the level: priority 0 is
// unclassified and goes to the default level.
func TestRunWarnsWhenTableIsNotIdentity(t *testing.T) {
	p := newNSPair(t)
	p.up(t, "--default-level", "2")
	b := programs(t)
	o := p.qjump(t, runArgs(ModePreload, "0", nil, b.cprobe)...)
	if o.code() != 0 || !strings.Contains(o.stderr, "counts priority 0 as level 2") {
		t.Errorf("exit %d, stderr %q; want a warning that level 0 goes out at 2", o.code(), o.stderr)
	}
	if o := p.qjump(t, runArgs(ModePreload, "5", nil, b.cprobe)...); strings.Contains(o.stderr, "warning") {
		t.Errorf("warned for an identity level: %q", o.stderr)
	}
}
