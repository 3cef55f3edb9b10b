package jobs

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// River's routine news ("Producer job counts", at info) shows at debug only;
// its warnings stay warnings.
func TestRiverLogsItsNewsAtDebug(t *testing.T) {
	var out bytes.Buffer
	info := riverLogger(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo})))
	info.Info("producer: Producer job counts", "queue", "default")
	if out.Len() != 0 {
		t.Errorf("River's info news shows at info: %s", out.String())
	}
	info.With("component", "river").Warn("producer: Soft stop timeout")
	if !strings.Contains(out.String(), "level=WARN") || !strings.Contains(out.String(), "component=river") {
		t.Errorf("River's warning does not show as one: %s", out.String())
	}
	out.Reset()
	debug := riverLogger(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	debug.Info("producer: Producer job counts", "queue", "default")
	if !strings.Contains(out.String(), "level=DEBUG") || !strings.Contains(out.String(), "Producer job counts") {
		t.Errorf("River's news does not show at debug: %s", out.String())
	}
}
