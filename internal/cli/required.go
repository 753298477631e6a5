package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// missingFlagError rewrites cobra's `required flag(s) "hosts" not set`, which names neither the
// verb nor what to give, into the form every other missing input takes (`advise needs a target:
// ...`): the verb, the flag with its value as the verb's usage line writes it, what the flag is,
// and the verb's own example that gives it. Any other error is returned as it is.
func missingFlagError(cmd *cobra.Command, err error) error {
	if cmd == nil || err == nil || !strings.HasPrefix(err.Error(), "required flag(s) ") {
		return err
	}
	var missing []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if _, required := f.Annotations[cobra.BashCompOneRequiredFlag]; required && !f.Changed {
			missing = append(missing, f.Name)
		}
	})
	if len(missing) == 0 {
		return err
	}
	name := missing[0] // one at a time, as every other refusal names one field
	f := cmd.Flags().Lookup(name)
	what := strings.SplitN(f.Usage, "\n", 2)[0]
	msg := fmt.Sprintf("%s needs %s: %s", verb(cmd), flagWithValue(cmd.Use, name), what)
	if ex := exampleWith(cmd.Example, name); ex != "" {
		msg += "; for example: " + ex
	}
	return &UsageError{Err: fmt.Errorf("%s", msg)}
}

// flagWithValue is --name as the usage line writes it with its value ("--hosts N"), or --name.
func flagWithValue(use, name string) string {
	fields := strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(use))
	for i, w := range fields {
		if w == "--"+name && i+1 < len(fields) && !strings.HasPrefix(fields[i+1], "-") {
			return w + " " + fields[i+1]
		}
	}
	return "--" + name
}

// exampleWith is the first line of example that gives --name, without its comment lines.
func exampleWith(example, name string) string {
	for _, line := range strings.Split(example, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "#") && strings.Contains(line+" ", "--"+name+" ") {
			return strings.TrimSuffix(line, " \\")
		}
	}
	return ""
}
