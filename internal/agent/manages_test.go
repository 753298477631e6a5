package agent

import (
	"os"
	"testing"

	"github.com/qjump-net/qjump/internal/host"
)

// status sees an agent that runs QJump on a device of this namespace: its lock held (by this
// process here), its state naming the device and this namespace. Any of the three missing, it
// does not.
func TestManages(t *testing.T) {
	dir := t.TempDir()
	ns, err := host.NetnsKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := writeState(dir, state{Devices: []string{"eth0"}, Netns: ns}); err != nil {
		t.Fatal(err)
	}
	if _, ok := Manages(dir, "eth0"); ok {
		t.Error("no agent holds the lock, yet Manages says one runs eth0")
	}
	lock, err := lockStateDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if pid, ok := Manages(dir, "eth0"); !ok || pid != os.Getpid() {
		t.Errorf("Manages(eth0) = %d, %v; want this process, %d, true", pid, ok, os.Getpid())
	}
	if _, ok := Manages(dir, "eth1"); ok {
		t.Error("Manages(eth1): true for a device the agent does not run")
	}
	if err := writeState(dir, state{Devices: []string{"eth0"}, Netns: ns + "0"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := Manages(dir, "eth0"); ok {
		t.Error("Manages(eth0): true for the agent's eth0 in another network namespace")
	}
	if err := writeState(dir, state{Devices: []string{"eth0"}, Netns: ns}); err != nil {
		t.Fatal(err)
	}
	lock.Close()
	if _, ok := Manages(dir, "eth0"); ok {
		t.Error("Manages(eth0): true after the agent let go of its lock")
	}
}
