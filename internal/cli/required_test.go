package cli

import (
	"strings"
	"testing"
)

// A required flag left out is named the way every missing input is, with the verb, what the flag
// is and an example that gives it, exit 2: it was cobra's `required flag(s) "hosts" not set`.
func TestMissingRequiredFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"testbed", "up"}, "qjump: testbed up needs --hosts N: number of hosts, n (2 to 32); for example: qjump testbed up --hosts 4\n"},
		{[]string{"testbed", "up", "--rate", "10M"}, "qjump: testbed up needs --hosts N: "},
		{[]string{"up", "--hosts", "2", "--rate", "1G"}, "qjump: up needs --dev IF: interface to attach to, e.g. eth0; for example: qjump up --dev eth0 "},
		{[]string{"ptp"}, "qjump: ptp needs --role master|slave: master or slave"},
		{[]string{"testbed", "stalls"}, "qjump: testbed stalls needs --out FILE: "},
	} {
		_, errOut, status := run(t, c.args...)
		if status != exitUsage || !strings.HasPrefix(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("qjump %s: exit %d, stderr %q; want 2 and one line starting %q", strings.Join(c.args, " "), status, errOut, c.want)
		}
	}
}
