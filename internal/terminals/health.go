package terminals

import (
	"fmt"
	"time"
)

// Health is a device's badge. The cloud reports no live status of a
// terminal (its configuration carries none), so the badge is built from
// what the portal itself saw: the last configuration download, the last
// call the cloud answered about the device (a launch or a result read) and
// how long it took, the last result, and the failures in a row. It always
// says what it is based on.
type Health struct {
	// Tone is ok, warn, bad or muted.
	Tone  string
	Label string
	// Evidence lists what the badge is based on, newest knowledge first.
	Evidence []Evidence
}

// Evidence is one fact behind a badge; At, when set, is shown in the
// viewer's zone after Text.
type Evidence struct {
	Text string
	At   *time.Time
	// After follows the time, e.g. " (answered in 120 ms)".
	After string
}

// Thresholds of the badge.
const (
	// failingStreak failures in a row make a device "failing".
	failingStreak = 3
	// recentAnswer is how long an answer counts as fresh evidence.
	recentAnswer = 30 * time.Minute
	// staleConfig is when a configuration download is old news.
	staleConfig = 24 * time.Hour
)

// HealthOf builds the badge of d from the evidence at now; cfg is the
// location's download record (nil when never downloaded).
func HealthOf(d *Device, cfg *Config, now time.Time) Health {
	h := Health{Evidence: evidenceOf(d, cfg)}
	switch {
	case d.RemovedAt != nil:
		h.Tone, h.Label = "muted", "Removed"
	case d.ErrorStreak >= failingStreak:
		h.Tone, h.Label = "bad", fmt.Sprintf("Failing: %d errors in a row", d.ErrorStreak)
	case d.ErrorStreak > 0:
		h.Tone, h.Label = "warn", fmt.Sprintf("%d recent error%s", d.ErrorStreak, plural(int(d.ErrorStreak)))
	case d.LastOKAt != nil && now.Sub(*d.LastOKAt) <= recentAnswer:
		h.Tone, h.Label = "ok", "Answering"
	case cfg != nil && cfg.FetchedAt != nil && cfg.Error == "" && now.Sub(*cfg.FetchedAt) <= staleConfig:
		h.Tone, h.Label = "muted", "Listed, no recent transaction"
	default:
		h.Tone, h.Label = "muted", "No recent evidence"
	}
	return h
}

// evidenceOf lists the facts behind a badge.
func evidenceOf(d *Device, cfg *Config) []Evidence {
	var ev []Evidence
	if d.RemovedAt != nil {
		ev = append(ev, Evidence{Text: "Not in the configuration downloaded at", At: d.RemovedAt})
	}
	if d.ErrorStreak > 0 {
		ev = append(ev, Evidence{Text: fmt.Sprintf("%d failed call%s in a row; the last at", d.ErrorStreak, plural(int(d.ErrorStreak))),
			At: d.LastErrorAt, After: ": " + d.LastError})
	}
	if d.LastResultAt != nil {
		ev = append(ev, Evidence{Text: "Last result read at", At: d.LastResultAt})
	}
	if d.LastOKAt != nil {
		after := ""
		if d.LastOKMs != nil {
			after = fmt.Sprintf(" (answered in %d ms)", *d.LastOKMs)
		}
		ev = append(ev, Evidence{Text: "Last answer from the cloud about it at", At: d.LastOKAt, After: after})
	} else {
		ev = append(ev, Evidence{Text: "No transaction launched on it from the portal yet."})
	}
	switch {
	case cfg == nil:
	case cfg.Error != "":
		ev = append(ev, Evidence{Text: "The last configuration download failed at", At: &cfg.AttemptedAt, After: ": " + cfg.Error})
		if cfg.FetchedAt != nil {
			ev = append(ev, Evidence{Text: "Devices as listed by the download at", At: cfg.FetchedAt})
		}
	case cfg.FetchedAt != nil:
		after := ""
		if cfg.FetchMs != nil {
			after = fmt.Sprintf(" (answered in %d ms)", *cfg.FetchMs)
		}
		ev = append(ev, Evidence{Text: "Listed by the configuration downloaded at", At: cfg.FetchedAt, After: after})
	}
	ev = append(ev, Evidence{Text: "The terminal cloud reports no live status: this is what the portal saw itself."})
	return ev
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
