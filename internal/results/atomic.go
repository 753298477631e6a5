package results

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
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
	img := vgimg.New(w, h)
	// A right margin: the data area reaches the canvas's edge, and the markers at the last x
	// were drawn half outside the image (fan-in's at f7 = 4).
	pl.Draw(plotArea(draw.New(img)))
	return savePNG(img, path)
}

// plotRightMargin keeps the markers at a plot's last x, and their labels, inside the image.
const plotRightMargin = vg.Length(8)

// plotArea is the part of an image's canvas c that a plot is drawn on (savePlot), as its legend
// is placed (canvasOf).
func plotArea(c draw.Canvas) draw.Canvas { return draw.Crop(c, 0, -plotRightMargin, 0, 0) }
