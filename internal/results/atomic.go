package results

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// WriteFileAtomic writes path through write: into a temporary file in the same directory, then
// renamed over path. A run stopped half-way (an error, a signal, a full disk) leaves the old file
// or none, never half of one, so a results directory only ever holds whole files.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// The temporary name keeps the extension: a reader globbing *.csv or *.png in the directory
	// would otherwise be none the wiser, and a dot-name is hidden from ls.
	tmp, err := os.CreateTemp(dir, "."+strings.TrimSuffix(base, filepath.Ext(base))+"-*.tmp"+filepath.Ext(base))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes it 0600; results are for reading
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// savePlot writes pl as a w×h PNG at path, atomically (see WriteFileAtomic).
//
// A variable, so that a test can see the plot as it is saved (its axes' ranges).
var savePlot = func(pl *plot.Plot, w, h vg.Length, path string) error {
	wt, err := pl.WriterTo(w, h, "png")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, func(f io.Writer) error {
		_, err := wt.WriteTo(f)
		return err
	})
}
