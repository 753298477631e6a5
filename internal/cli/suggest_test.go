package cli

import (
	"testing"
)

// A command line a word off gets one line that names the mistake and the likely fix, exit 2.
func TestMistakesNameTheFix(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"device without its flag", []string{"down", "eth0"}, `down takes no arguments, got "eth0": did you mean --dev eth0?`},
		{"device without its flag, before others", []string{"up", "eth0", "--hosts", "2"}, `did you mean --dev eth0?`},
		{"cgroup without its flag", []string{"assign", "system.slice/x.service", "--level", "5"}, `did you mean --cgroup system.slice/x.service?`},
		{"stray word beside the flag it would be", []string{"status", "--dev", "eth0", "eth1"}, `status takes no arguments, got "eth1": every setting is a flag (see qjump status --help)`},
		{"stray word, no flag it belongs to", []string{"sim", "fct", "tcp"}, `sim fct takes no arguments, got "tcp": every setting is a flag (see qjump sim fct --help)`},
		{"verb misspelt", []string{"stat"}, `unknown command "stat" for "qjump": did you mean status? (see qjump --help)`},
		{"verb too long", []string{"calculate"}, `did you mean calc?`},
		{"verb of a group misspelt", []string{"sim", "fc"}, `unknown command "fc" for "qjump sim": did you mean fct?`},
		{"hidden group", []string{"probe", "clinet"}, `unknown command "clinet" for "qjump probe": did you mean client?`},
		{"nothing near", []string{"bench", "zzz"}, `unknown command "zzz" for "qjump bench" (see qjump bench --help)`},
		{"flag misspelt", []string{"calc", "--host", "12"}, `unknown flag --host for "qjump calc": did you mean --hosts?`},
		{"flag transposed", []string{"calc", "--hsots", "12"}, `did you mean --hosts?`},
		{"flag of another verb", []string{"calc", "--dev", "eth0"}, `unknown flag --dev for "qjump calc" (see qjump calc --help)`},
		{"one dash", []string{"down", "-dev", "eth0"}, `unknown flag -dev for "qjump down": flags take two dashes: --dev`},
		{"one dash behind a shorthand", []string{"calc", "-hosts=3"}, `flags take two dashes: --hosts=3`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantUsageError(t, tt.args, tt.want) })
	}
}
