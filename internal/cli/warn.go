package cli

import (
	"fmt"
	"io"
)

// warn prints warnings on stderr, one "qjump: warning:" line each: what a verb found valid but
// suspicious, said before or after it acts.
func warn(stderr io.Writer, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "qjump: warning: %s\n", w)
	}
}
