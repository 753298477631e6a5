package experiment

// A simulator run is written into a staging directory of its --out and published there only once
// every file is written (publish.Staging). Written into --out directly, a sweep stopped after a
// minute replaced the complete run in it by the few points it had finished, and a write that
// failed half-way left the two runs' files mixed.

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/qjump-net/qjump/internal/publish"
)

// flowsDir is a sweep's directory of per-point flows files (flowsFile). Its files are published
// one by one, so that a file of the user's in it stays.
const flowsDir = "flows"

// Publish writes a run of experiment with write into a staging directory of out and publishes it
// there: the files of an earlier run of the experiment that its results.json lists make way,
// every other file of out stays but for the user's files that the run's replace, which are kept in
// out/replaced-TIME, as say is told. A partial run (a stopped sweep, whose record says so) never
// replaces an earlier run, complete or partial: it is kept beside it, in out/unpublished-TIME,
// and Publish returns that directory; otherwise it returns out. A run that cannot write or publish every file keeps
// what it wrote there too, with an error that says where (publish.Kept); one that wrote no
// results.json leaves nothing.
func Publish(out, experiment string, partial bool, write func(dir string) error, say io.Writer) (dir string, err error) {
	st, err := publish.Stage(out)
	if err != nil {
		return "", err
	}
	defer st.Discard() // nothing once published or kept
	if err := write(st.Dir()); err != nil {
		if _, serr := os.Stat(filepath.Join(st.Dir(), "results.json")); serr != nil {
			return "", err
		}
		return "", st.Keep(err)
	}
	err = st.Publish(experiment, publish.Layout{Merge: []string{flowsDir}, Partial: partial})
	if kept, ok := publish.Kept(err); ok && errors.Is(err, publish.ErrBesideEarlier) && !publish.Unnamed(err) {
		return kept, nil
	}
	if err != nil {
		return "", err
	}
	st.SayReplaced(say)
	return out, nil
}
