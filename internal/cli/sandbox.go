package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/config"
)

// sandbox runs the sandbox upstream on its own, for rehearsals by resellers and
// for pointing another portal at it. It needs no database.
func (e env) sandbox(ctx context.Context) error {
	cfg, err := config.LoadSandbox(e.lookup)
	if err != nil {
		return err
	}
	if len(cfg.Tokens) == 0 && len(cfg.APIKeys) == 0 {
		return errors.New("set PORTAL_SANDBOX_TOKENS or PORTAL_SANDBOX_API_KEYS so that clients can authenticate")
	}
	log := app.NewLogger(e.stderr, "development", "info")
	rs, err := app.StartSandboxServer(cfg.ListenAddr, app.SandboxOptions(*cfg, log))
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Sandbox upstream listening on %s (API base %s)\n", rs.URL, rs.BaseURL)
	if cfg.ManualClock {
		fmt.Fprintf(e.stdout, "Manual clock at %s: move it on the admin page or with POST /_sandbox/admin/api/clock/advance\n",
			rs.Root.Clock().Now().UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if cfg.AdminToken != "" {
		fmt.Fprintf(e.stdout, "Admin controls: %s/_sandbox/admin\n", rs.URL)
	}
	<-ctx.Done()
	return rs.Close(context.WithoutCancel(ctx))
}
