// Package results is how a measurement is written down and drawn, whoever measured it: the
// namespace testbed's experiments and the simulator. A run is rows of samples (samples.csv), the
// statistics of each series of rows, targets judged on those statistics, and a document
// (results.json) that holds them with the run's setup; from these it renders the table a command
// prints, summary.md and the plots.
//
// It knows nothing of the testbed or the simulator: a producer embeds Header and Outcome in its own
// results document, beside its setup, and supplies the lines of text only it can write (View).
package results
