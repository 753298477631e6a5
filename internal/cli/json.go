package cli

import (
	"encoding/json"
	"io"
)

// printJSON is every verb's --json: one indented object on stdout.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
