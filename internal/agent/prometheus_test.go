package agent_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/qjump-net/qjump/internal/agent"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

// promListen is where the test's Prometheus serves its API: loopback inside host 1's namespace.
const promListen = "127.0.0.1:19090"

// prometheusScrapes starts Debian's Prometheus in host 1's namespace, scraping every agent over
// the testbed's network once a second, and checks that what Prometheus stored is what
// `qjump status --json` reads from the per-CPU maps: equal for the level that carried the test's
// traffic, and between the readings before and after the scrape for level 0, which carries the
// scrapes themselves.
func (cl *cluster) prometheusScrapes() {
	t := cl.t
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		testutil.Unavailable(t, "prometheus is not installed (scripts/deps installs it)")
	}
	dir := t.TempDir()
	var targets []string
	for i := range cl.agents {
		targets = append(targets, fmt.Sprintf("'%s:%s'", cl.tb.Names.HostAddr(i+1), agentPort))
	}
	rules, err := filepath.Abs(agent.AlertRulesFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("global: {scrape_interval: 1s, scrape_timeout: 900ms, evaluation_interval: 1s}\n"+
		"rule_files: [%q]\n"+
		"scrape_configs:\n  - job_name: qjump\n    static_configs:\n      - targets: [%s]\n", rules, strings.Join(targets, ", "))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	h1 := cl.tb.Names.HostNS(1)
	argv := testbed.InNS(h1, bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+promListen, "--log.level=warn")
	cmd := exec.Command(argv[0], argv[1:]...)
	logf, _ := os.Create(filepath.Join(dir, "prometheus.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		logf.Close()
		if t.Failed() {
			data, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Logf("prometheus log:\n%s", data)
		}
	}()
	prom := promAPI{ns: h1}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if n, _ := prom.scalar(`count(up{job="qjump"} == 1)`); n == float64(len(cl.agents)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus did not scrape all %d agents within 20 s", len(cl.agents))
		}
		time.Sleep(200 * time.Millisecond)
	}
	for i := range cl.agents {
		cl.compareScrape(prom, i+1)
	}
	if n, _ := prom.scalar(`count(count by (hash) (qjump_config_info))`); n != 1 {
		t.Errorf("prometheus sees %v distinct configuration hashes across the cluster, want 1", n)
	}
	cl.alertRulesEvaluate(prom)
	cl.dashboardQueriesAnswer(prom)
}

// alertRulesEvaluate checks the shipped alerting rules on what the agents really export: each
// evaluates without error, the bound the cluster file gives level 7 (factor 2 at m = 2) is
// scraped from every host, and so the rule for an interface without any bound finds none.
func (cl *cluster) alertRulesEvaluate(prom promAPI) {
	t := cl.t
	deadline := time.Now().Add(10 * time.Second)
	for {
		rules, err := prom.rules()
		bad := 0
		for _, r := range rules {
			if r.Health != "ok" || r.LastError != "" {
				bad++
			}
		}
		if err == nil && len(rules) > 0 && bad == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("alerting rules not all evaluated without error within 10 s: %+v (%v)", rules, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n, err := prom.scalar(`count(qjump_level_fan_in_delay_seconds{level="7"})`); n != float64(len(cl.agents)) {
		t.Errorf("level 7's bound scraped from %v hosts (%v), want all %d", n, err, len(cl.agents))
	}
	if n, err := prom.count(`qjump_epoch_seconds unless on (instance, interface) qjump_level_fan_in_delay_seconds`); err != nil || n != 0 {
		t.Errorf("%d interfaces without a guaranteed level (%v) in a cluster whose level 7 has one", n, err)
	}
	// A healthy cluster raises nothing, not even a pending alert.
	if n, err := prom.count(`ALERTS`); err != nil || n != 0 {
		t.Errorf("%d alerts raised or pending on a healthy cluster (%v)", n, err)
	}
}

// dashboardQueriesAnswer runs every query of the shipped Grafana dashboard as Grafana would with
// every host and interface chosen: each is valid PromQL and finds data on a running cluster.
func (cl *cluster) dashboardQueriesAnswer(prom promAPI) {
	grafana := strings.NewReplacer(`$instance`, `.*`, `$interface`, `.*`, `$__rate_interval`, `1m`)
	for _, q := range agent.DashboardQueries(cl.t) {
		if strings.HasPrefix(q, "label_values(") { // a variable's values: Grafana's own function
			q = strings.TrimSuffix(strings.TrimPrefix(q, "label_values("), ")")
			q = q[:strings.LastIndex(q, ",")]
		}
		q = grafana.Replace(q)
		if n, err := prom.count(q); err != nil || n == 0 {
			cl.t.Errorf("dashboard query %s: %d series (%v), want some", q, n, err)
		}
	}
}

// compareScrape reads host's status, waits for a scrape that follows, reads status again, and
// compares each level's sent bytes as Prometheus stored them.
func (cl *cluster) compareScrape(prom promAPI, host int) {
	t := cl.t
	ns, instance := cl.tb.Names.HostNS(host), fmt.Sprintf("%s:%s", cl.tb.Names.HostAddr(host), agentPort)
	before := status(t, cl.bin, ns, "eth0")
	read := time.Now()
	sel := fmt.Sprintf(`qjump_sent_bytes_total{instance=%q,interface="eth0"`, instance)
	deadline := time.Now().Add(5 * time.Second)
	for {
		ts, err := prom.scalar("max(timestamp(" + sel + "}))")
		if err == nil && ts > float64(read.UnixNano())/1e9 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("host %d: no scrape after the status reading within 5 s (%v)", host, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	after := status(t, cl.bin, ns, "eth0")
	for l := 0; l < 8; l++ {
		v, err := prom.scalar(fmt.Sprintf(`%s,level="%d"}`, sel, l))
		lo, _ := before.level(l)
		hi, _ := after.level(l)
		if err != nil || v < float64(lo) || v > float64(hi) {
			t.Errorf("host %d level %d: prometheus has %v bytes (%v), status read %d before the scrape and %d after", host, l, v, err, lo, hi)
		}
		if l == 7 && lo == hi && v != float64(lo) {
			t.Errorf("host %d level 7: prometheus has %v bytes, status %d", host, v, lo)
		}
	}
	if host == 1 {
		if s, _ := before.level(7); s == 0 {
			t.Errorf("host 1 level 7 sent nothing: the comparison did not see the test's traffic")
		}
	}
}

// promAPI queries Prometheus's HTTP API inside a namespace.
type promAPI struct{ ns string }

// promRule is one rule of /api/v1/rules as far as the tests read it.
type promRule struct {
	Name      string
	Health    string
	LastError string
}

// rules lists every loaded rule.
func (p promAPI) rules() ([]promRule, error) {
	resp, err := nsClient(p.ns).Get("http://" + promListen + "/api/v1/rules")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Groups []struct {
				Rules []promRule
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	var out []promRule
	for _, g := range r.Data.Groups {
		out = append(out, g.Rules...)
	}
	return out, nil
}

// query runs an instant query and returns the series it found.
func (p promAPI) query(q string) ([]struct{ Value [2]any }, error) {
	resp, err := nsClient(p.ns).Get("http://" + promListen + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Error  string
		Data   struct {
			Result []struct{ Value [2]any }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("query %s: %s %s", q, r.Status, r.Error)
	}
	return r.Data.Result, nil
}

// count runs an instant query and returns how many series it found.
func (p promAPI) count(q string) (int, error) {
	result, err := p.query(q)
	return len(result), err
}

// scalar runs an instant query whose result is one number.
func (p promAPI) scalar(q string) (float64, error) {
	result, err := p.query(q)
	if err != nil {
		return 0, err
	}
	if len(result) != 1 {
		return 0, fmt.Errorf("query %s: %d results, want 1", q, len(result))
	}
	s, _ := result[0].Value[1].(string)
	return strconv.ParseFloat(s, 64)
}
