package publish

// Timed names: a directory named by the time, with -N after it where another run took that name in
// the same second.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// renameTimed renames from to base and the time, base20060102-150405, with -N after it where that
// name is taken (two runs in one second), never replacing anything; it returns the name taken.
func renameTimed(from, base string) (string, error) {
	return takeTimed(base, func(to string) error { return renameNoReplace(from, to) })
}

// MakeTimedDir makes a new directory base20060102-150405, with -N after it where that name is
// taken: a run's own, whatever other runs start in the same second. It returns its name.
func MakeTimedDir(base string) (string, error) {
	return takeTimed(base, func(name string) error { return os.Mkdir(name, 0o755) })
}

// takeTimed takes (makes, or renames into) base and the time, trying -1, -2, ... after it while
// take finds the name taken (fs.ErrExist), and returns the name it took.
func takeTimed(base string, take func(name string) error) (string, error) {
	base += time.Now().Format("20060102-150405")
	var err error
	for i := 0; i < 100; i++ {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		if err = take(name); !errors.Is(err, fs.ErrExist) {
			return name, err
		}
	}
	return "", err
}
