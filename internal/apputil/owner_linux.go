package apputil

import (
	"os"
	"syscall"
)

func fileOwner(st os.FileInfo) int {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(sys.Uid)
	}
	return -1
}
