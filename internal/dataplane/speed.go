package dataplane

import (
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/model"
)

// deviceSpeed is ethtoolSpeed; a variable so that tests can play a device whose speed changed.
var deviceSpeed = ethtoolSpeed

// ethtoolSpeed is the link speed the device's driver reports (ethtool), in bit/s, or 0 when it
// reports none (SPEED_UNKNOWN, no carrier, or no ethtool support). It asks through an ioctl on a
// socket of the caller's network namespace, not through /sys, which `nsenter --net` leaves
// showing another namespace's devices.
func ethtoolSpeed(name string) model.Rate {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(fd)
	// struct ethtool_cmd (ETHTOOL_GSET): speed at offset 12, speed_hi at 28, in Mb/s.
	var cmd [44]byte
	*(*uint32)(unsafe.Pointer(&cmd[0])) = ethtoolGSet
	var req struct {
		name [unix.IFNAMSIZ]byte
		data unsafe.Pointer
		_    [16]byte
	}
	copy(req.name[:], name)
	req.data = unsafe.Pointer(&cmd[0])
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&req))); errno != 0 {
		return 0
	}
	mbps := uint32(*(*uint16)(unsafe.Pointer(&cmd[12]))) | uint32(*(*uint16)(unsafe.Pointer(&cmd[28])))<<16
	if mbps == 0 || mbps == speedUnknown {
		return 0
	}
	return model.Rate(float64(mbps) * 1e6)
}

const (
	ethtoolGSet  = 0x1
	speedUnknown = 0xffffffff
)

// linkCap is the rate QJump's root class holds the device to: R when R is below the device's
// speed (or the speed is unknown: R is then the only rate known to be right), the speed otherwise.
// caps says whether that is below what the device does by itself.
func linkCap(r, speed model.Rate) (rcap model.Rate, caps bool) {
	if speed <= 0 || r < speed {
		return r, true
	}
	return speed, false
}
