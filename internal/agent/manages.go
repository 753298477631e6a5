package agent

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
)

// Manages says whether a qjump agent that keeps its state in dir is running and runs QJump on
// device in this network namespace, and its pid: what `qjump status` needs to tell an interface
// whose hook was removed, which the agent puts back within a second, from one that only
// `qjump down` clears. It holds the lock of a running agent (lockStateDir), seen in /proc/locks
// without taking it (taking it, even for a moment, would make an agent starting then refuse), and
// its saved state names the device in this namespace. An agent with another --state-dir, or one
// that saved no namespace (before this was recorded), is not seen: false. Status asks the agent
// of its namespace on its socket first (Find), which sees any --state-dir; this is for an agent
// that answers nothing there (an earlier version).
func Manages(dir, device string) (pid int, ok bool) {
	pid, held := lockHolder(lockFile(dir))
	if !held {
		return 0, false
	}
	s, err := readState(dir)
	if err != nil || s.Netns == "" || !slices.Contains(s.Devices, device) {
		return 0, false
	}
	if ns, err := host.NetnsKey(); err != nil || ns != s.Netns {
		return 0, false
	}
	return pid, true
}

// lockHolder finds the process holding an exclusive flock on the file at path in /proc/locks
// ("1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; waiters are "1: -> FLOCK ...").
func lockHolder(path string) (pid int, ok bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, false
	}
	id := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[3] != "WRITE" || fields[5] != id {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil {
			return pid, true
		}
	}
	return 0, false
}
