package cli

import "strings"

// isCobraUsage recognises the errors cobra itself returns for a bad command line (an unknown verb,
// wrong argument count), which it does not type.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "required flag"} {
		if strings.HasPrefix(msg, prefix) || strings.Contains(msg, " "+prefix) {
			return true
		}
	}
	return false
}
