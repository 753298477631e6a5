package host

import (
	"errors"
	"syscall"
)

// ProcessRuns says whether a process with pid exists: signal 0 checks without sending, and a
// process we may not signal (EPERM) exists too. For records that name the process that made
// something, so that what a killed process left can be told from what a live one uses.
func ProcessRuns(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
