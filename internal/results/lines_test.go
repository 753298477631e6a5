package results

import (
	"os"
	"path/filepath"
	"testing"
)

// Line plots, stacks and bar charts write a PNG when they have data, and nothing when they have none.
func TestLinePlots(t *testing.T) {
	dir := t.TempDir()
	lp := LinePlot{Title: "t", XLabel: "x", YLabel: "y", LogY: true, Marks: []Mark{{X: 1, Label: "phase"}},
		Lines: []Line{{Label: "a", Points: []XY{{0, 1}, {1, 10}, {2, 0}}}, {Label: "model", Model: true, Points: []XY{{0, 5}, {2, 5}}},
			{Label: "dots", Dots: true, Points: []XY{{0.5, 3}}}}}
	st := Stack{File: "stack.png", Panels: []LinePlot{lp, {Title: "empty"}, lp}, SameY: true}
	bars := Bars{File: "bars.png", Labels: []string{"idle", "busy"}, Values: []float64{1, 30}}
	for name, draw := range map[string]func() (string, error){
		"line.png":  func() (string, error) { return lp.Draw(dir, "line.png") },
		"stack.png": func() (string, error) { return st.Draw(dir) },
		"bars.png":  func() (string, error) { return bars.Draw(dir) },
	} {
		f, err := draw()
		if err != nil || f != name {
			t.Fatalf("draw %s = %q, %v", name, f, err)
		}
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for name, draw := range map[string]func() (string, error){
		"no lines":  func() (string, error) { return LinePlot{Lines: []Line{{Label: "a"}}}.Draw(dir, "x.png") },
		"no panels": func() (string, error) { return Stack{File: "y.png", Panels: []LinePlot{{}}}.Draw(dir) },
		"no bars":   func() (string, error) { return Bars{File: "z.png"}.Draw(dir) },
	} {
		if f, err := draw(); f != "" || err != nil {
			t.Errorf("%s: drew %q, %v", name, f, err)
		}
	}
}
