package agent

import "testing"

// What package agent_test's tests need of this package's tests: the namespace pair of an agent
// test, and for the cluster test the shipped alerting rules and dashboard, which it runs on a
// real Prometheus.

// QJumpPair is qjumpPair.
var QJumpPair = qjumpPair

// AlertRulesFile is the shipped rules file, relative to this package.
const AlertRulesFile = alertRules

// DashboardQueries is every query of the shipped dashboard.
func DashboardQueries(t *testing.T) []string { return dashboardQueries(readDashboard(t)) }
