// Command qjump configures, proves and tunes QJump on Linux: see `qjump --help`.
package main

import (
	"os"

	"github.com/qjump-net/qjump/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
