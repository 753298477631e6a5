package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// soNetnsCookie is SO_NETNS_COOKIE (Linux 5.14+), which golang.org/x/sys does not name yet.
const soNetnsCookie = 71

// NetnsKey names this thread's network namespace in pinned paths. Interfaces in different
// namespaces may share a name (every testbed host has eth0), so state is keyed by both. The key is
// the namespace's cookie, which the kernel never reuses while it runs; a namespace's inode number
// is reused once the namespace is gone, and would make a new namespace find a dead one's state.
// Kernels without cookies fall back to the inode ("ino-<n>").
func NetnsKey() (string, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		defer unix.Close(fd)
		cookie, err := unix.GetsockoptUint64(fd, unix.SOL_SOCKET, soNetnsCookie)
		if err == nil {
			return strconv.FormatUint(cookie, 10), nil
		}
	}
	var st unix.Stat_t
	if err := unix.Stat("/proc/thread-self/ns/net", &st); err != nil {
		return "", fmt.Errorf("identify network namespace: %w", err)
	}
	return "ino-" + strconv.FormatUint(st.Ino, 10), nil
}

// IsNetnsKey says whether name is one NetnsKey returns: a cookie, or ino-<inode>.
func IsNetnsKey(name string) bool {
	_, err := strconv.ParseUint(strings.TrimPrefix(name, "ino-"), 10, 64)
	return err == nil
}

// InNetns runs f on a locked thread inside the named network namespace (/run/netns/name) and
// returns to the caller's. Sockets and netlink requests f makes belong to name. It panics if it
// cannot get back, because the process would go on in the wrong namespace.
func InNetns(name string, f func()) error {
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("get network namespace: %w", err)
	}
	defer orig.Close()
	target, err := netns.GetFromName(name)
	if err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("open network namespace %s: %w", name, err)
	}
	defer target.Close()
	if err := netns.Set(target); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("enter network namespace %s: %w", name, err)
	}
	f()
	if err := netns.Set(orig); err != nil {
		panic(fmt.Sprintf("leave network namespace %s: %v", name, err))
	}
	runtime.UnlockOSThread()
	return nil
}

// DisableIPv6 turns IPv6 off in the named network namespace, for its interfaces now and to come,
// as `sysctl -w net.ipv6.conf.{all,default}.disable_ipv6=1` inside it would, without needing
// procps (a minimal Debian has no sysctl program). /proc/sys/net shows the sysctls of the network
// namespace of the thread that opens it, which InNetns makes the named one. On a kernel without
// IPv6 (ipv6.disable=1) there is nothing to turn off.
func DisableIPv6(name string) error {
	if _, err := os.Stat("/proc/sys/net/ipv6"); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var err error
	if nsErr := InNetns(name, func() {
		for _, scope := range []string{"all", "default"} {
			path := "/proc/sys/net/ipv6/conf/" + scope + "/disable_ipv6"
			if err = os.WriteFile(path, []byte("1\n"), 0); err != nil {
				err = fmt.Errorf("turn IPv6 off in network namespace %s: %w", name, err)
				return
			}
		}
	}); nsErr != nil {
		return fmt.Errorf("turn IPv6 off: %w", nsErr)
	}
	return err
}
