// Package publish puts a run's files into its output directory (--out) as one transaction. A run
// writes into a staging directory inside its output directory (Stage) and replaces the earlier run
// there only once it has written every file (Publish). Written into the output directory directly,
// a rerun stopped half-way mixed its files with the earlier, complete run's (the testbed's
// stalls.csv and raw/ beside the other run's results.json), and a stopped simulator sweep replaced
// a complete run by the few points it had finished. Publishing deletes nothing until every move is
// made (replace), a run that cannot publish keeps its files under a visible name (Keep), and a
// partial run never replaces an earlier one (Publish).
//
// It is a package of its own, apart from internal/results, because it is another idea: results is
// what a run's files say (rows, series, statistics, targets, results.json, summary.md, plots),
// whoever measured it; publish is how one directory of files replaces another on disk, whatever
// they say: flock locks on the staging directories and on the output directory, renames that never
// replace, moving the earlier run aside and giving it back when a move fails, keeping the user's
// files that a run's replaced, timed directory names (MakeTimedDir), and recovering the files of
// runs that died. Of results it reads only the header of the earlier run's results.json, to tell a
// run's files from the user's.
package publish
