package accounts

import (
	"errors"
	"fmt"
	"time"
)

var errNegativeLifetime = errors.New("sandbox: the URL lifetime must not be negative")

// areaSettings are the area's own answer settings as the admin surface
// reads and writes them: the presigned URL lifetime as Go duration text
// ("10s", empty for the published 120 s) and the answer shapes.
type areaSettings struct {
	URLLifetime      string `json:"urlLifetime"`
	OmitPresignedURL bool   `json:"omitPresignedUrl"`
	ExpAtSeconds     bool   `json:"expAtSeconds"`
}

func (s *Server) settings() areaSettings {
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	out := areaSettings{OmitPresignedURL: s.compat.OmitPresignedURL, ExpAtSeconds: s.compat.ExpAtSeconds}
	if s.urlLifetime > 0 {
		out.URLLifetime = s.urlLifetime.String()
	}
	return out
}

// applySettings checks and installs admin settings.
func (s *Server) applySettings(as areaSettings) error {
	var life time.Duration
	if as.URLLifetime != "" {
		d, err := time.ParseDuration(as.URLLifetime)
		if err != nil || d < 0 {
			return fmt.Errorf("urlLifetime: %q is not a duration such as 10s or 2m", as.URLLifetime)
		}
		life = d
	}
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	s.urlLifetime = life
	s.compat = Compat{OmitPresignedURL: as.OmitPresignedURL, ExpAtSeconds: as.ExpAtSeconds}
	return nil
}

// urlLife is the lifetime of presigned URLs in force, whole seconds.
func (s *Server) urlLife() time.Duration {
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	if s.urlLifetime > 0 {
		return max(s.urlLifetime.Truncate(time.Second), time.Second)
	}
	return DefaultURLLifetime
}
