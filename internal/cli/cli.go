// Package cli parses the portal's subcommands and hands each to its runner.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/database"
)

const usage = `Usage: portal <command> [flags]

Commands:
  serve                     run the portal (applies pending migrations first)
  migrate up|down|status    manage the database schema
  user create --email E --role admin|sales_rep [--name N]
                            create a user; prints a generated password once
  sandbox                   run the sandbox upstream on its own
  config check|reference    check the environment's settings, or print the reference of
                            every setting (docs/configuration.md)

Configuration comes from PORTAL_* environment variables; see docs/configuration.md.
`

// env bundles what every subcommand receives.
type env struct {
	lookup func(string) (string, bool)
	stdout io.Writer
	stderr io.Writer
}

// Run executes one subcommand and returns the process exit code.
func Run(ctx context.Context, args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) int {
	e := env{lookup: lookup, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = e.serve(ctx)
	case "migrate":
		err = e.migrate(ctx, args[1:])
	case "user":
		err = e.user(ctx, args[1:])
	case "sandbox":
		err = e.sandbox(ctx)
	case "config":
		err = e.config(args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	var uerr usageError
	switch {
	case errors.As(err, &uerr):
		fmt.Fprintf(stderr, "%s\n\n%s", uerr, usage)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "portal %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

type usageError string

func (u usageError) Error() string { return string(u) }

// load reads the configuration and opens the database.
func (e env) load(ctx context.Context) (*config.Config, *slog.Logger, *database.DB, error) {
	cfg, err := config.Load(e.lookup)
	if err != nil {
		return nil, nil, nil, err
	}
	log := app.NewLogger(e.stderr, cfg.Env, cfg.LogLevel)
	db, err := database.Open(ctx, cfg.DatabaseURL, cfg.DBMaxConns, log)
	if err != nil {
		return nil, nil, nil, err
	}
	return cfg, log, db, nil
}
