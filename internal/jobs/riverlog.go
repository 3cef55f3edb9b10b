package jobs

import (
	"context"
	"log/slog"
)

// riverLogger is log as River gets it. River logs routine news at info (a
// producer's job counts every 30 seconds, clients started and stopped), meant
// for its own default logger, which shows warnings only; the portal shows that
// news one level lower, at debug, and River's warnings and errors as they are.
func riverLogger(log *slog.Logger) *slog.Logger { return slog.New(quieter{log.Handler()}) }

// quieter hands records below warning to h at debug.
type quieter struct{ h slog.Handler }

func lowered(l slog.Level) slog.Level {
	if l < slog.LevelWarn {
		return min(l, slog.LevelDebug)
	}
	return l
}

func (q quieter) Enabled(ctx context.Context, l slog.Level) bool { return q.h.Enabled(ctx, lowered(l)) }

func (q quieter) Handle(ctx context.Context, r slog.Record) error {
	r.Level = lowered(r.Level)
	return q.h.Handle(ctx, r)
}

func (q quieter) WithAttrs(attrs []slog.Attr) slog.Handler { return quieter{q.h.WithAttrs(attrs)} }

func (q quieter) WithGroup(name string) slog.Handler { return quieter{q.h.WithGroup(name)} }
