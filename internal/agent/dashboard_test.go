package agent

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"testing"
)

const dashboardFile = "../../deploy/grafana/qjump-dashboard.json"

// dashboard is the part of a Grafana dashboard the tests read.
type dashboard struct {
	Panels []struct {
		ID      int    `json:"id"`
		Title   string `json:"title"`
		GridPos *struct {
			W, H int
		} `json:"gridPos"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
		FieldConfig struct {
			Defaults struct {
				Unit string `json:"unit"`
			} `json:"defaults"`
		} `json:"fieldConfig"`
	} `json:"panels"`
	Templating struct {
		List []struct {
			Name  string `json:"name"`
			Query string `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

func readDashboard(t *testing.T) dashboard {
	t.Helper()
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	return d
}

// dashboardQueries is every PromQL query of the dashboard: its panels' and its variables'.
func dashboardQueries(d dashboard) []string {
	var out []string
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		if v.Name != "datasource" {
			out = append(out, v.Query)
		}
	}
	return out
}

// TestDashboardUsesExportedMetrics: the shipped Grafana dashboard is well formed (unique ids, a
// place and a unit for each panel, a query in each) and every metric and label its queries name is
// one the agent exports, so that a renamed metric fails here instead of leaving an empty panel.
// TestClusterOfAgents runs the queries on a real Prometheus.
func TestDashboardUsesExportedMetrics(t *testing.T) {
	d := readDashboard(t)
	exported := exportedLabels(t)
	ids := map[int]bool{}
	for _, p := range d.Panels {
		switch {
		case ids[p.ID] || p.ID == 0:
			t.Errorf("panel %q: id %d missing or taken", p.Title, p.ID)
		case p.GridPos == nil || p.GridPos.W == 0 || p.GridPos.H == 0:
			t.Errorf("panel %q: no place on the grid", p.Title)
		case p.FieldConfig.Defaults.Unit == "":
			t.Errorf("panel %q: no unit", p.Title)
		case len(p.Targets) == 0:
			t.Errorf("panel %q: no query", p.Title)
		}
		ids[p.ID] = true
	}
	queries := dashboardQueries(d)
	if len(d.Panels) == 0 || len(queries) == 0 {
		t.Errorf("%s: %d panels and %d queries read, so none checked", dashboardFile, len(d.Panels), len(queries))
	}
	for _, q := range queries {
		checkQuery(t, q, exported)
	}
}

// metricName matches the name of one of the agent's metrics in a query.
var metricName = regexp.MustCompile(`qjump_[a-z0-9_]+`)

// queryLabels is every label of the qjump metrics q names, and the names the agent does not export.
func queryLabels(q string, exported map[string][]string) (labels, missing []string) {
	for _, n := range metricName.FindAllString(q, -1) {
		ls, ok := exported[n]
		if !ok {
			missing = append(missing, n)
		}
		labels = append(labels, ls...)
	}
	return labels, missing
}

// checkQuery fails t unless every metric q names is one the agent exports and every label it
// selects, matches on or groups by is on one of those metrics (or is Prometheus's instance).
func checkQuery(t *testing.T, q string, exported map[string][]string) {
	t.Helper()
	labels := regexp.MustCompile(`(?:(?:by|on) \(([a-z_, ]+)\))|(?:([a-z_]+)=~?")`)
	word := regexp.MustCompile(`[a-z_]+`)
	if !metricName.MatchString(q) {
		t.Errorf("query %s names no qjump metric", q)
	}
	known, missing := queryLabels(q, exported)
	for _, n := range missing {
		t.Errorf("query %s: %s is not a metric the agent exports", q, n)
	}
	for _, m := range labels.FindAllStringSubmatch(q, -1) {
		for _, l := range word.FindAllString(m[1]+" "+m[2], -1) {
			if l != "instance" && !slices.Contains(known, l) {
				t.Errorf("query %s: label %s is on none of its metrics", q, l)
			}
		}
	}
}
