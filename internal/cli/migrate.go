package cli

import (
	"context"
	"fmt"
)

func (e env) migrate(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return usageError("migrate needs one of: up, down, status")
	}
	_, log, db, err := e.load(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	switch args[0] {
	case "up":
		return db.MigrateUp(ctx, log)
	case "down":
		return db.MigrateDown(ctx, log)
	case "status":
		statuses, err := db.MigrationStatuses(ctx)
		if err != nil {
			return err
		}
		for _, s := range statuses {
			state := "pending"
			if s.Applied {
				state = "applied"
			}
			fmt.Fprintf(e.stdout, "%-8s %s\n", state, s.File)
		}
		return nil
	}
	return usageError("migrate needs one of: up, down, status")
}
