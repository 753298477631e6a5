module github.com/qjump-net/qjump

go 1.25.0

require (
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.10
	golang.org/x/sys v0.43.0
)

require github.com/inconshreveable/mousetrap v1.1.0 // indirect
