// Command portal is the merchant onboarding portal: one binary with the
// subcommands serve, migrate, user, sandbox and keys.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	// Time zones are built in, so users' zones work on images without
	// /usr/share/zoneinfo (the distroless image).
	_ "time/tzdata"

	"github.com/payportal/portal/internal/cli"
)

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(cli.DefaultMemoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
