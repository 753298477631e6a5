package agent

import (
	"os"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/qjump-net/qjump/internal/dataplane"
)

// TestDownActionIsDescribedWhole: qjump_agent_interface_actions_total{action="down"} counts
// interfaces the file stopped matching (an edit, a rename) as well as interfaces gone; its help
// and docs/deployment.md's table said "interface gone" only (review, helper-85).
func TestDownActionIsDescribedWhole(t *testing.T) {
	const metric = "qjump_agent_interface_actions_total"
	m := newMetrics(dataplaneCollector{list: func() ([]dataplane.Status, error) { return nil, nil }, log: func(error) {}})
	ch := make(chan *prometheus.Desc, 1024)
	m.registry.Describe(ch)
	close(ch)
	help := ""
	for d := range ch {
		if s := d.String(); strings.Contains(s, `fqName: "`+metric+`"`) {
			help = s
		}
	}
	docs, err := os.ReadFile("../../docs/deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	row := ""
	for _, line := range strings.Split(string(docs), "\n") {
		if strings.HasPrefix(line, "| `"+metric+"`") {
			row = line
		}
	}
	for what, text := range map[string]string{"the help": help, "docs/deployment.md's row": row} {
		if !strings.Contains(text, "no longer matched by") {
			t.Errorf("%s of %s does not say that down counts interfaces the file no longer matches: %q", what, metric, text)
		}
	}
}
