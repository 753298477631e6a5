package config

import (
	"strings"
	"testing"
)

// A file that would lose what it says is refused, naming the key: a number yaml would cut to a
// whole one, a level given twice under two spellings (either value won, at random), and a
// second document, whose keys nothing reads.
func TestParseRefusesWhatWouldBeLost(t *testing.T) {
	cases := []struct{ file, key string }{
		{"hosts: 12\nrate: 10G\nmesochronous: 1.9\n", "mesochronous"},
		{"hosts: 12.5\nrate: 10G\n", "hosts"},
		{"hosts: 12\nrate: 10G\nvlan_id: 4094.9\n", "vlan_id"},
		{"hosts: 12\nrate: 10G\ndefault_level: 7.5\n", "default_level"},
		{"hosts: 12\nrate: 10G\ndscp: {7: 46.5}\n", "dscp[7]"},
		{"hosts: 12\nrate: 10G\nfactors: {7: 1, 07: 2}\n", "factors"},
		{"hosts: 12\nrate: 10G\ntarget_rate: {5: 5G, \" 5\": 1G}\n", "target_rate"},
		{"hosts: 12\nrate: 10G\npriority_levels: {6: 7, 06: 1}\n", "priority_levels"},
		{"hosts: 12\nrate: 10G\n---\nhosts: 99999\nbogus: 1\n", "second YAML document"},
	}
	for _, c := range cases {
		_, err := Parse("test.yaml", []byte(c.file))
		if err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%q: %v; want refused, naming %s", c.file, err, c.key)
		}
	}
	ok := "hosts: 12\nrate: 10G\nmesochronous: 2\nfactors: {7: 1, 5: 2.5, 0: unlimited}\ndscp: {7: 46}\n---\n"
	if _, err := Parse("test.yaml", []byte(ok)); err != nil {
		t.Errorf("a good file with a trailing ---: %v", err)
	}
}
