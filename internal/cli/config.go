package cli

import (
	"fmt"

	"github.com/payportal/portal/internal/config"
)

// config runs `portal config check|reference`.
func (e env) config(args []string) error {
	if len(args) != 1 {
		return usageError("portal config needs check or reference")
	}
	switch args[0] {
	case "check":
		if _, err := config.Load(e.lookup); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, "configuration ok")
		return nil
	case "reference":
		entries, err := config.Reference()
		if err != nil {
			return err
		}
		fmt.Fprint(e.stdout, config.Markdown(entries))
		return nil
	}
	return usageError(fmt.Sprintf("unknown config command %q", args[0]))
}
