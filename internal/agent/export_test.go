package agent

import "testing"

// What package agent_test's cluster test needs of this package's tests: the shipped alerting
// rules and dashboard, which it runs on a real Prometheus.

// AlertRulesFile is the shipped rules file, relative to this package.
const AlertRulesFile = alertRules

// DashboardQueries is every query of the shipped dashboard.
func DashboardQueries(t *testing.T) []string { return dashboardQueries(readDashboard(t)) }
