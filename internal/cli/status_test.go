package cli

import (
	"encoding/json"
	"testing"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

func TestStatusOptions(t *testing.T) {
	if got := parseOptions(t, newStatusCommand); got.dev != "" || got.json {
		t.Errorf("no flags parsed as %+v, want every device as tables", got)
	}
	if got := parseOptions(t, newStatusCommand, "--dev", "eth1", "--json"); got.dev != "eth1" || !got.json {
		t.Errorf("--dev eth1 --json parsed as %+v", got)
	}
}

// A level that is not configured has no rate and no budget: null, never a rate of 0 b/s.
func TestStatusJSONUnconfiguredLevelIsNull(t *testing.T) {
	c := config.Default()
	c.Model.Hosts, c.Model.Rate = 12, model.Rate(10e9)
	c.Model.Factors = model.Factors{7: model.Limited(1), 0: model.Unlimited()}
	b, err := json.Marshal(newStatusJSON([]dataplane.Status{{Device: "eth0", Config: c}}))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Devices []struct {
			Levels []map[string]any `json:"levels"`
		} `json:"devices"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	levels := got.Devices[0].Levels // highest first
	for _, l := range levels {
		level, configured := int(l["level"].(float64)), l["configured"].(bool)
		rate, hasRate := l["rate_bps"]
		switch {
		case !hasRate:
			t.Errorf("level %d has no rate_bps key", level)
		case configured && !(rate.(float64) > 0):
			t.Errorf("level %d (configured): rate_bps %v", level, rate)
		case !configured && rate != nil:
			t.Errorf("level %d (not configured): rate_bps %v, want null", level, rate)
		}
	}
	if levels[0]["configured"] != true || levels[3]["configured"] != false || levels[7]["configured"] != true {
		t.Errorf("levels 7, 4, 0 configured: %v %v %v", levels[0]["configured"], levels[3]["configured"], levels[7]["configured"])
	}
}
