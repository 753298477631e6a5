package agent

import (
	"errors"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"gopkg.in/yaml.v3"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/testutil"
)

const alertRules = "../../deploy/prometheus/qjump-alerts.yaml"

// alertTests are the rules' tests: the series as the agent exports them, and as a PodMonitor
// scrapes them, with the pod's labels, which a rollout changes (review, helper-85).
var alertTests = []string{"../../deploy/prometheus/qjump-alerts.test.yaml", "../../deploy/prometheus/qjump-alerts.pods.test.yaml"}

// targetLabels are the labels a scrape adds to every series: instance always, the others a
// PodMonitor's.
var targetLabels = []string{"instance", "job", "namespace", "pod", "container", "endpoint"}

// TestAlertRules runs Debian's promtool on the shipped alerting rules: they parse, and their
// own tests (which alert fires for which series, with what text) pass.
func TestAlertRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		testutil.Unavailable(t, "promtool is not installed (scripts/deps installs prometheus, which has it)")
	}
	for _, args := range [][]string{{"check", "rules", alertRules}, append([]string{"test", "rules"}, alertTests...)} {
		if out, err := exec.Command(promtool, args...).CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestAlertRulesUseExportedMetrics: every qjump metric the rules name is one the agent serves,
// and every series their tests feed has the labels the agent gives it (and those a scrape adds):
// a renamed metric or label would otherwise leave an alert that passes its tests and never fires.
func TestAlertRulesUseExportedMetrics(t *testing.T) {
	exported := exportedLabels(t)
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	data, err := os.ReadFile(alertRules)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &rules); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			checked++
			checkQuery(t, r.Expr, exported)
			// The labels the text names must be on the alert's series too.
			known, _ := queryLabels(r.Expr, exported)
			for _, a := range r.Annotations {
				for _, m := range regexp.MustCompile(`\$labels\.([a-z_]+)`).FindAllStringSubmatch(a, -1) {
					if m[1] != "instance" && !slices.Contains(known, m[1]) {
						t.Errorf("%s: its text names $labels.%s, on none of its metrics", r.Alert, m[1])
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Errorf("%s: no rule read, so none checked", alertRules)
	}
	for _, path := range alertTests {
		checkTestSeries(t, path, exported)
	}
}

// checkTestSeries checks that every series the rules' tests at path feed is of a metric the agent
// exports, with its labels and those a scrape adds (targetLabels).
func checkTestSeries(t *testing.T, path string, exported map[string][]string) {
	t.Helper()
	var tests struct {
		Tests []struct {
			Name        string `yaml:"name"`
			InputSeries []struct {
				Series string `yaml:"series"`
			} `yaml:"input_series"`
		} `yaml:"tests"`
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &tests); err != nil {
		t.Fatal(err)
	}
	series := regexp.MustCompile(`^([a-z0-9_]+)\{(.*)\}$`)
	label := regexp.MustCompile(`([a-z_]+)="[^"]*"`)
	checked := 0
	for _, tc := range tests.Tests {
		for _, in := range tc.InputSeries {
			checked++
			m := series.FindStringSubmatch(in.Series)
			if m == nil {
				t.Errorf("%s: series %q not in the form name{labels}", tc.Name, in.Series)
				continue
			}
			want, ok := exported[m[1]]
			if !ok {
				t.Errorf("%s: series of %s, which the agent does not export", tc.Name, m[1])
				continue
			}
			var got []string
			for _, l := range label.FindAllStringSubmatch(m[2], -1) {
				if !slices.Contains(targetLabels, l[1]) {
					got = append(got, l[1])
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s: series %s has labels %v (a scrape's aside), the agent exports %v", tc.Name, in.Series, got, want)
			}
		}
	}
	if checked == 0 {
		t.Errorf("%s: no input series read, so none checked", path)
	}
}

// exportedLabels is every metric the agent's registry describes, with its labels, sorted.
func exportedLabels(t *testing.T) map[string][]string {
	t.Helper()
	m := newMetrics(dataplaneCollector{list: func() ([]dataplane.Status, error) { return nil, nil }, log: func(error) {}})
	ch := make(chan *prometheus.Desc, 1024)
	m.registry.Describe(ch)
	close(ch)
	name := regexp.MustCompile(`fqName: "([^"]+)"`)
	labels := regexp.MustCompile(`variableLabels: \{([^}]*)\}`)
	out := map[string][]string{}
	for d := range ch {
		s := d.String()
		n := name.FindStringSubmatch(s)
		if n == nil {
			t.Fatalf("cannot read the name of %s", s)
		}
		var ls []string
		if l := labels.FindStringSubmatch(s); l != nil && l[1] != "" {
			ls = strings.Split(l[1], ",")
		}
		slices.Sort(ls)
		out[n[1]] = ls
	}
	if len(out) < 20 {
		t.Fatalf("read %d metrics from the registry, expected the agent's 20 or more: has Desc.String's form changed?", len(out))
	}
	return out
}

// TestPrometheusRuleIsTheRulesFile: deploy/prometheus/prometheusrule prints a PrometheusRule whose
// spec is the rules file, unchanged (one copy of the rules), in the namespace and with the labels
// asked for; and refuses a namespace Kubernetes would, saying why.
func TestPrometheusRuleIsTheRulesFile(t *testing.T) {
	script := "../../deploy/prometheus/prometheusrule"
	out, err := exec.Command(script, "--namespace", "monitoring", "--label", "release=kube-prometheus-stack").Output()
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	var rule struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name      string            `yaml:"name"`
			Namespace string            `yaml:"namespace"`
			Labels    map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec any `yaml:"spec"`
	}
	if err := yaml.Unmarshal(out, &rule); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, out)
	}
	if rule.APIVersion != "monitoring.coreos.com/v1" || rule.Kind != "PrometheusRule" || rule.Metadata.Name != "qjump" ||
		rule.Metadata.Namespace != "monitoring" || rule.Metadata.Labels["release"] != "kube-prometheus-stack" {
		t.Errorf("header %s %s %+v, want a monitoring.coreos.com/v1 PrometheusRule qjump in monitoring labelled release", rule.APIVersion, rule.Kind, rule.Metadata)
	}
	data, err := os.ReadFile(alertRules)
	if err != nil {
		t.Fatal(err)
	}
	var file any
	if err := yaml.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rule.Spec, file) {
		t.Errorf("the PrometheusRule's spec is not the rules file")
	}
	cmd := exec.Command(script, "--namespace", "Bad_NS")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), "invalid --namespace 'Bad_NS'") {
		t.Errorf("--namespace Bad_NS: %v, stderr %q; want exit 2 naming the namespace", err, stderr.String())
	}
}
