package ptp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestMain removes the qjump binary the namespace test built.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// TestPTP4lMasterAndSlave runs the real ptp4l through `qjump ptp` in two namespaces joined by a
// veth pair: the slave gets samples of a plausible size, and stopping the master (SIGTERM, as an
// experiment does) leaves nothing running in its namespace.
func TestPTP4lMasterAndSlave(t *testing.T) {
	testutil.RequirePriv(t, "the ptp4l test (network namespaces)")
	if _, err := exec.LookPath("ptp4l"); err != nil {
		testutil.Unavailable(t, "ptp4l is not installed (scripts/deps installs linuxptp)")
	}
	k := os.Getpid() % 1000
	p, err := nspair.New(context.Background(), fmt.Sprintf("qjptp%d", k),
		fmt.Sprintf("198.19.%d.1", k%250), fmt.Sprintf("198.19.%d.2", k%250))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Remove()
	bin, dir := testutil.QjumpBinary(t), t.TempDir()

	ready := filepath.Join(dir, "master.ready")
	master := exec.Command("ip", "netns", "exec", p.A, bin, "ptp", "--role", "master", "--for", "60s",
		"--ready", ready, "--log", filepath.Join(dir, "master.log"))
	var masterOut strings.Builder
	master.Stdout, master.Stderr = &masterOut, &masterOut
	if err := master.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = master.Process.Kill(); _ = master.Wait() }()
	waitFor(t, ready, 10*time.Second, &masterOut)

	csv := filepath.Join(dir, "slave.csv")
	out, err := exec.Command("ip", "netns", "exec", p.B, bin, "ptp", "--role", "slave", "--for", "15s",
		"--limit", "40", "--out", csv).CombinedOutput()
	if err != nil {
		t.Fatalf("slave: %v: %s", err, out)
	}
	samples := readSamples(t, csv)
	if len(samples) != 40 {
		t.Fatalf("slave got %d samples in 15s, want 40 (16 a second)", len(samples))
	}
	offsets := make([]int64, len(samples))
	for i, s := range samples {
		if s.PathDelayNS <= 0 || s.PathDelayNS > int64(time.Millisecond) {
			t.Errorf("sample %d: path delay %d ns; a veth pair takes a few microseconds", i, s.PathDelayNS)
		}
		offsets[i] = s.OffsetNS
	}
	sort.Slice(offsets, func(i, j int) bool { return offsets[i] < offsets[j] })
	if med := offsets[len(offsets)/2]; med < -int64(time.Millisecond) || med > int64(time.Millisecond) {
		t.Errorf("median offset %d ns; one shared clock gives microseconds", med)
	}
	t.Logf("40 samples, offsets %d..%d ns, median %d ns", offsets[0], offsets[len(offsets)-1], offsets[len(offsets)/2])

	_ = master.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- master.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("master still running 10s after SIGTERM")
	}
	if pids, _ := exec.Command("ip", "netns", "pids", p.A).Output(); strings.TrimSpace(string(pids)) != "" {
		t.Errorf("processes left in the master's namespace after it stopped: %s", pids)
	}
}

func waitFor(t *testing.T, path string, within time.Duration, out fmt.Stringer) {
	t.Helper()
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s not there within %v: %s", path, within, out)
}

func readSamples(t *testing.T, path string) []Sample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
