package accounts

import (
	"fmt"
	"time"
)

// faultSettings is Faults and Compat as the admin surface reads and writes
// them: durations as Go duration text ("250ms", "10s"), empty for zero.
type faultSettings struct {
	Latency          string  `json:"latency"`
	LatencyJitter    string  `json:"latencyJitter"`
	ErrorRate        float64 `json:"errorRate"`
	DropRate         float64 `json:"dropRate"`
	URLLifetime      string  `json:"urlLifetime"`
	RetryAfter       string  `json:"retryAfter"`
	OmitPresignedURL bool    `json:"omitPresignedUrl"`
	ExpAtSeconds     bool    `json:"expAtSeconds"`
}

func settingsOf(f Faults, c Compat) faultSettings {
	return faultSettings{
		Latency: durationText(f.Latency), LatencyJitter: durationText(f.LatencyJitter),
		ErrorRate: f.ErrorRate, DropRate: f.DropRate,
		URLLifetime: durationText(f.URLLifetime), RetryAfter: durationText(f.RetryAfter),
		OmitPresignedURL: c.OmitPresignedURL, ExpAtSeconds: c.ExpAtSeconds,
	}
}

func durationText(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// applySettings checks and installs admin settings.
func (s *Server) applySettings(fs faultSettings) error {
	var f Faults
	for _, p := range []struct {
		name string
		text string
		dst  *time.Duration
	}{
		{"latency", fs.Latency, &f.Latency},
		{"latencyJitter", fs.LatencyJitter, &f.LatencyJitter},
		{"urlLifetime", fs.URLLifetime, &f.URLLifetime},
		{"retryAfter", fs.RetryAfter, &f.RetryAfter},
	} {
		if p.text == "" {
			continue
		}
		d, err := time.ParseDuration(p.text)
		if err != nil {
			return fmt.Errorf("%s: %q is not a duration such as 250ms or 10s", p.name, p.text)
		}
		*p.dst = d
	}
	f.ErrorRate, f.DropRate = fs.ErrorRate, fs.DropRate
	if err := s.SetFaults(f); err != nil {
		return err
	}
	s.SetCompat(Compat{OmitPresignedURL: fs.OmitPresignedURL, ExpAtSeconds: fs.ExpAtSeconds})
	return nil
}
