package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testbed/tbtest"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestKilledTestbedUpIsIncomplete: a testbed up killed while it builds (SIGKILL: no handler runs)
// leaves a testbed that status shows as incomplete, with its hosts, the pid that was killed and
// the command that removes it; exec refuses it with the same; another prefix's message names it;
// and down removes everything. Before, up wrote its state only once every host was built, and
// status and exec said that no testbed was up under the prefix.
func TestKilledTestbedUpIsIncomplete(t *testing.T) {
	bin := tbtest.RequireTools(t)
	prefix, other := tbtest.Prefix(t), tbtest.Prefix(t)
	pid := killedWhileBuilding(t, bin, prefix, 16)
	nss := tbtest.NetnsOf(t, prefix)
	down := testbed.DownCommand(prefix)

	out, errOut, code := testutil.Run(t, nil, bin, "testbed", "status", "--prefix", prefix)
	warning := fmt.Sprintf("warning: testbed %s is incomplete: the qjump that built it (pid %d) was killed before it finished; remove it with: %s", prefix, pid, down)
	if code != 0 || !strings.HasPrefix(out, fmt.Sprintf("testbed %s: 16 hosts,", prefix)) || !strings.Contains(out, warning) {
		t.Errorf("status: exit %d, stderr %q, stdout:\n%s\nwant the 16 hosts and %q", code, errOut, out, warning)
	}
	out, _, code = testutil.Run(t, nil, bin, "testbed", "status", "--prefix", prefix, "--json")
	var st testbedStatusJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 || !st.Building || st.PID != pid || st.Config.Hosts != 16 {
		t.Errorf("status --json: exit %d (%v): %s\nwant building, pid %d, 16 hosts", code, err, out, pid)
	}
	out, errOut, code = testutil.Run(t, nil, bin, "testbed", "exec", "--prefix", prefix, "1", "--", "echo", "ran")
	if code != exitRuntime || strings.Contains(out, "ran") || !strings.Contains(errOut, "incomplete") || !strings.Contains(errOut, down) {
		t.Errorf("exec: exit %d, stdout %q, stderr %q; want a refusal (1) that it is incomplete, naming %q", code, out, errOut, down)
	}
	_, errOut, _ = testutil.Run(t, nil, bin, "testbed", "status", "--prefix", other)
	if !strings.Contains(errOut, "qjump testbed down --prefix "+prefix) {
		t.Errorf("status of another prefix: %q; want it to name %s's remains and how to remove them", errOut, prefix)
	}
	out, errOut, code = testutil.Run(t, nil, bin, "testbed", "down", "--prefix", prefix)
	if code != 0 || out != fmt.Sprintf("testbed %s: removed\n", prefix) {
		t.Errorf("down: exit %d, stdout %q, stderr %q; want removed", code, out, errOut)
	}
	tbtest.AssertNothingLeft(t, prefix, nss)
}

// killedWhileBuilding starts `qjump testbed up --hosts n --prefix prefix` and kills it with SIGKILL
// once it has made its second host, long before it has made its last; it returns its pid.
func killedWhileBuilding(t *testing.T, bin, prefix string, n int) int {
	t.Helper()
	up := exec.Command(bin, "testbed", "up", "--hosts", fmt.Sprint(n), "--prefix", prefix)
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(testbed.NetnsDir, testbed.Names{Prefix: prefix}.HostNS(2))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if _, err := os.Stat(second); err == nil {
			break
		}
		if time.Now().After(deadline) {
			break // killed below, and judged by whether it had finished
		}
	}
	_ = up.Process.Kill()
	var exit *exec.ExitError
	if err := up.Wait(); !errors.As(err, &exit) || exit.ExitCode() != -1 {
		t.Fatalf("testbed up --hosts %d: %v; want it killed while it built", n, err)
	}
	return up.Process.Pid
}

// TestKilledTestbedDownIsHalfRemoved: a testbed down killed part-way (SIGKILL: no handler runs),
// after it removed a host and before it removed the record, leaves a testbed that status calls
// half-removed, with the command that removes the rest; the host that is gone is one whose QJump
// cannot be read, not one without QJump; exec refuses it; and down removes the rest. Before, the
// record was that of a testbed that was up: status showed it without a word, its gone host "off".
func TestKilledTestbedDownIsHalfRemoved(t *testing.T) {
	bin := tbtest.RequireTools(t)
	prefix := tbtest.Prefix(t)
	if _, errOut, code := testutil.Run(t, nil, bin, "testbed", "up", "--hosts", "6", "--prefix", prefix); code != 0 {
		t.Fatalf("testbed up: exit %d, %s", code, errOut)
	}
	nss := tbtest.NetnsOf(t, prefix)
	killedWhileRemoving(t, bin, prefix)
	down := testbed.DownCommand(prefix)

	out, errOut, code := testutil.Run(t, nil, bin, "testbed", "status", "--prefix", prefix)
	warning := fmt.Sprintf("warning: testbed %s is half-removed: the qjump that was removing it was killed part-way, or could not delete a namespace; "+
		"remove the rest with: %s", prefix, down)
	first, _, _ := strings.Cut(out, "\n")
	if code != 0 || !strings.Contains(out, warning) || !strings.Contains(first, "cannot be read on") || strings.HasSuffix(first, "QJump off") ||
		strings.Contains(out, "the others' traffic") {
		t.Errorf("status: exit %d, stderr %q, stdout:\n%s\nwant %q, and the hosts that are gone as ones that cannot be read",
			code, errOut, out, warning)
	}
	out, _, code = testutil.Run(t, nil, bin, "testbed", "status", "--prefix", prefix, "--json")
	var st testbedStatusJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 || !st.Removing || st.QJumpHosts != nil || st.Hosts[0].Error == "" {
		t.Errorf("status --json: exit %d (%v): %s\nwant removing, qjump_hosts null, host 1's error", code, err, out)
	}
	out, errOut, code = testutil.Run(t, nil, bin, "testbed", "exec", "--prefix", prefix, "2", "--", "echo", "ran")
	if code != exitRuntime || strings.Contains(out, "ran") || !strings.Contains(errOut, "half-removed") || !strings.Contains(errOut, down) {
		t.Errorf("exec: exit %d, stdout %q, stderr %q; want a refusal (1) that it is half-removed, naming %q", code, out, errOut, down)
	}
	out, errOut, code = testutil.Run(t, nil, bin, "testbed", "down", "--prefix", prefix)
	if code != 0 || out != fmt.Sprintf("testbed %s: removed\n", prefix) {
		t.Errorf("down: exit %d, stdout %q, stderr %q; want removed", code, out, errOut)
	}
	tbtest.AssertNothingLeft(t, prefix, nss)
}

// killedWhileRemoving starts `qjump testbed down --prefix prefix` and kills it with SIGKILL once it
// has removed the first host's namespace, long before it has removed the switch's.
func killedWhileRemoving(t *testing.T, bin, prefix string) {
	t.Helper()
	down := exec.Command(bin, "testbed", "down", "--prefix", prefix)
	if err := down.Start(); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(testbed.NetnsDir, testbed.Names{Prefix: prefix}.HostNS(1))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(first); err != nil || time.Now().After(deadline) {
			break // killed below, and judged by whether it had finished
		}
	}
	_ = down.Process.Kill()
	var exit *exec.ExitError
	if err := down.Wait(); !errors.As(err, &exit) || exit.ExitCode() != -1 {
		t.Fatalf("testbed down: %v; want it killed while it removed the testbed", err)
	}
	if left, _ := testbed.Namespaces(prefix); len(left) == 0 {
		t.Fatalf("testbed down removed every namespace before it was killed")
	}
}
