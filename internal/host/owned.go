package host

import (
	"fmt"
	"os"
	"syscall"
)

// OwnedByMe checks that st, a file's stat, is of a directory owned by this process's user that
// no one else may write to. A directory another user made first, or one anyone may write to, is
// a place where another local user can hold a lock, or move what is kept there, or plant a file.
func OwnedByMe(path string, st os.FileInfo) error {
	uid := -1
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		uid = int(sys.Uid)
	}
	switch {
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory (%s)", path, st.Mode())
	case uid != os.Geteuid():
		return fmt.Errorf("%s belongs to uid %d, not to uid %d, who runs this (%s)", path, uid, os.Geteuid(), st.Mode())
	case st.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s may be written by others than its owner (%s)", path, st.Mode())
	}
	return nil
}
