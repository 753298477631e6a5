package topology

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
)

func TestConfigJSON(t *testing.T) {
	paper := PaperFabric()
	b, err := json.Marshal(paper)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"racks":9,"hosts_per_rack":16,"spines":4,"edge_rate_bps":10000000000,"core_rate_bps":40000000000,` +
		`"link_delay_ns":200,"host_delay_ns":2500,"buffer_packets":null,"host_buffer_packets":null}`
	if string(b) != want {
		t.Errorf("paper fabric:\n%s\nwant:\n%s", b, want)
	}
	odd := paper
	odd.LinkDelay, odd.Buffer, odd.HostBuffer = 1234567*sim.Picosecond, 24, 600
	for _, c := range []Config{paper, odd} {
		b, _ := json.Marshal(c)
		var back Config
		if err := json.Unmarshal(b, &back); err != nil || back != c {
			t.Errorf("round trip of %s: %+v, %v; want %+v", b, back, err, c)
		}
	}
}

// results.json written before configJSON had Go's names and picoseconds; Report still reads it.
func TestConfigJSONOldForm(t *testing.T) {
	old := `{"Racks":9,"HostsPerRack":16,"Spines":4,"EdgeRate":10000000000,"CoreRate":40000000000,"LinkDelay":200000,"HostDelay":2500000,"Buffer":0,"HostBuffer":0}`
	var c Config
	if err := json.Unmarshal([]byte(old), &c); err != nil || c != PaperFabric() {
		t.Errorf("old form: %+v, %v; want %+v", c, err, PaperFabric())
	}
}

func TestConfigString(t *testing.T) {
	s := PaperFabric().String()
	for _, want := range []string{"9 racks of 16 hosts", "4 spines", "10 Gb/s host links", "0.2µs per link", "2.5µs per host-link crossing", "the scheme's buffers"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
}
