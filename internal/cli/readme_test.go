package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeExamples runs every "$ qjump ..." example in README.md that is followed by its output
// and checks that qjump still prints exactly that, so the README cannot drift from the tool.
func TestReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```\n\\$ qjump ([^\n]*)\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no `$ qjump` example with output")
	}
	for _, b := range blocks {
		args, want := strings.Fields(b[1]), b[2]
		t.Run(b[1], func(t *testing.T) {
			got, errOut, status := run(t, args...)
			if status != 0 {
				t.Fatalf("status %d: %s", status, errOut)
			}
			if got != want {
				t.Errorf("README shows:\n%s\nqjump prints:\n%s", want, got)
			}
		})
	}
}

// The docs run ping on level 7 in cgroup mode: ping drops its capabilities after opening its echo
// socket and then makes a route-lookup socket, on which preload mode cannot set priority 7, so the
// README's example printed a warning that read as the example failing.
func TestDocsRunPingInCgroupMode(t *testing.T) {
	for _, path := range []string{"../../README.md", "../../docs/testbed.md"} {
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range regexp.MustCompile(`qjump run [^\n]*-- ping[^\n]*`).FindAllString(string(doc), -1) {
			if strings.Contains(line, "--level 7") && !strings.Contains(line, "--mode cgroup") {
				t.Errorf("%s: %q runs ping at level 7 in preload mode", path, line)
			}
		}
	}
}
