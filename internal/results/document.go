package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/qjump-net/qjump/internal/version"
)

// Header opens a results document: which run this is.
type Header struct {
	Experiment string    `json:"experiment"`
	Title      string    `json:"title"`
	Quick      bool      `json:"quick"`
	Started    time.Time `json:"started"`
	DurationS  float64   `json:"duration_s"`
	// Build is the qjump that made the run (version.Get): the commit its figures come from.
	// Absent from runs made before it was recorded.
	Build version.Info `json:"build,omitzero"`
	// Interrupted, set on a run stopped before it finished (Ctrl-C), says so and what was kept,
	// e.g. "interrupted (interrupt signal received) after 5 of 24 points; the other 19 were not
	// run": the figures are those of the points kept, not of the whole experiment.
	Interrupted string `json:"interrupted,omitempty"`
}

// Outcome closes a results document: the arms that ran, the statistics of their series, the
// targets judged on them, and the files written. A producer embeds Header first and Outcome last
// in its own document, with its setup between them. Faults are what makes the run's figures
// untrustworthy (LossFaults): a run with any is a failed measurement, whatever its targets say.
type Outcome struct {
	Arms   []Arm    `json:"arms"`
	Series []Series `json:"series"`
	// Plotted are the numbers the plots draw that the series do not show as they are (a rate, a
	// ratio of RMS values), one table a plot; absent where every plotted figure is a column of
	// the series.
	Plotted []PlotTable `json:"plotted,omitempty"`
	Targets []Target    `json:"targets"`
	Faults  []string    `json:"faults,omitempty"`
	Files   []string    `json:"files"`
}

// Arm is one condition of a run: what traffic shared the network, and whether QJump was on. Its
// JSON is armJSON.
type Arm struct {
	Name        string
	Description string
	QJump       bool
	Bulk        string
	// Param is the arm's value of the experiment's swept parameter where HasParam says the arm
	// is a point of the sweep (0 included: 2pc's ratio 0); results.json writes it only then.
	Param    float64
	HasParam bool
	Skipped  string
	// Truncated says how an arm that ran stopped short of its plan, and where: "stopped by its 6s
	// time limit after 471-473 of 1500 rounds per participant". Its figures are of what it
	// measured, fewer samples than the others' and, where the limit cut the slowest part, not the
	// arm's whole tail.
	Truncated string
	// Bound is the model's latency bound for the arm's probes (fan-in: D7 at f7), and whether the
	// model guarantees it (f7 ≤ m) or it is the same formula continued past where it holds;
	// results.json writes the two apart (armJSON). 0: the arm has no bound.
	BoundUS         float64
	BoundGuaranteed bool
}

// ParamsFromArms gives each series its arm's swept parameter. Rows (samples.csv) cannot say
// whether a series is a point of the sweep, since their param is 0 both without a parameter and
// at the value 0, so SeriesOf takes 0 for none; a series whose arm is not listed keeps that.
func (o *Outcome) ParamsFromArms() {
	for i := range o.Series {
		s := &o.Series[i]
		if a, ok := o.Arm(s.Arm); ok {
			s.Param, s.HasParam = a.Param, a.HasParam
		}
	}
}

// Arm is the arm called name, if it ran or was skipped.
func (o *Outcome) Arm(name string) (Arm, bool) {
	for _, a := range o.Arms {
		if a.Name == name {
			return a, true
		}
	}
	return Arm{}, false
}

// Lookup is series k, and whether it has at least one delivered sample to judge.
func (o *Outcome) Lookup(k Key) (Series, bool) {
	for _, s := range o.Series {
		if s.Key() == k {
			return s, !s.Empty()
		}
	}
	return Series{}, false
}

// WriteJSON writes v, indented, to path, atomically (WriteFileAtomic): an interrupted run never
// leaves a results.json that does not parse.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// ExperimentIn is the experiment of the run in dir, as its results.json names it; "" when dir
// holds no results.json that can be read.
func ExperimentIn(dir string) string {
	var h Header
	if ReadJSON(filepath.Join(dir, "results.json"), &h) != nil {
		return ""
	}
	return h.Experiment
}

// ReadJSON reads path into v. A file that does not parse is named with the line and what is
// wrong in the file's own terms: a key and the kind of value it needs, not a Go type.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no %s in %s: need a directory that a run wrote (qjump testbed run, qjump sim run or qjump sim fct --out): %w",
			filepath.Base(path), filepath.Dir(path), err)
	}
	if err != nil {
		return fmt.Errorf("read results: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("parse %s: %s", path, jsonProblem(b, err))
	}
	return nil
}

// jsonProblem says where in b, and what, json.Unmarshal refused with err.
func jsonProblem(b []byte, err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		return "the file is empty"
	case errors.As(err, &syntax):
		return fmt.Sprintf("line %d: %v", lineAt(b, syntax.Offset), syntax)
	case errors.As(err, &typ):
		return fmt.Sprintf("line %d: %s is %s, need %s", lineAt(b, typ.Offset), jsonKey(typ.Field), jsonValue(typ.Value), jsonKind(typ.Type))
	}
	return err.Error()
}

// lineAt is the line of b that byte offset off is on, from 1.
func lineAt(b []byte, off int64) int {
	return 1 + bytes.Count(b[:min(max(off, 0), int64(len(b)))], []byte("\n"))
}

// jsonKey is the dotted path of keys to a value ("model.hosts") from encoding/json's, which also
// names the Go structs embedded on the way ("Header.experiment"): JSON keys here are lowercase.
func jsonKey(field string) string {
	var keys []string
	for _, k := range strings.Split(field, ".") {
		if k != "" && !unicode.IsUpper([]rune(k)[0]) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "the document"
	}
	return strconv.Quote(strings.Join(keys, "."))
}

// jsonValue is the JSON value encoding/json describes ("number", "number 1.5", "object") as prose.
func jsonValue(v string) string {
	if kind, value, ok := strings.Cut(v, " "); ok && kind == "number" {
		return value
	}
	switch v {
	case "object", "array":
		return "an " + v
	case "bool":
		return "true or false"
	}
	return "a " + v
}

// jsonKind is what a value of Go type t is in JSON.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}
