package cli

import "github.com/spf13/cobra"

func newTestbedRunCommand() *cobra.Command    { return &cobra.Command{Use: "run"} }
func newTestbedReportCommand() *cobra.Command { return &cobra.Command{Use: "report"} }
