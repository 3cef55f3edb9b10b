package accounts

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// admin guards an admin route with the admin token, sent as a bearer token
// or as the password of basic auth (any user name), so a browser can log in.
// Without an admin token the admin surface does not exist.
func (s *Server) admin(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.opts.AdminToken == "" {
			http.NotFound(w, r)
			return
		}
		given := bearerToken(r)
		if _, pw, ok := r.BasicAuth(); ok {
			given = pw
		}
		if subtle.ConstantTimeCompare([]byte(given), []byte(s.opts.AdminToken)) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="sandbox admin"`)
			http.Error(w, "admin token required", http.StatusUnauthorized)
			return
		}
		next(w, r)
	}
}

// adminView is the data of the admin page.
type adminView struct {
	Applications []Application
	Faults       faultSettings
	Statuses     []Status
	ManualClock  bool
	Now          time.Time
}

// handleAdminPage lists the applications with buttons to move them, and
// the fault settings.
func (s *Server) handleAdminPage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	settings := settingsOf(s.faults, s.compat)
	s.mu.Unlock()
	_, manual := s.opts.Clock.(*ManualClock)
	s.views.render(w, http.StatusOK, "admin", "Sandbox admin", adminView{
		Applications: s.Applications(), Faults: settings, Statuses: statuses,
		ManualClock: manual, Now: s.opts.Clock.Now(),
	})
}

// handleAdminStatusForm moves an application from the admin page.
func (s *Server) handleAdminStatusForm(w http.ResponseWriter, r *http.Request) {
	if err := s.SetStatus(r.PathValue("applicationId"), Status(r.FormValue("status"))); err != nil {
		s.views.notice(w, adminErrorStatus(err), "State not changed", err.Error())
		return
	}
	http.Redirect(w, r, "/_sandbox/admin", http.StatusSeeOther)
}

// handleAdminFaultsForm saves the fault settings from the admin page.
func (s *Server) handleAdminFaultsForm(w http.ResponseWriter, r *http.Request) {
	fs := faultSettings{
		Latency: r.FormValue("latency"), LatencyJitter: r.FormValue("latencyJitter"),
		URLLifetime: r.FormValue("urlLifetime"), RetryAfter: r.FormValue("retryAfter"),
		OmitPresignedURL: r.FormValue("omitPresignedUrl") == "yes",
		ExpAtSeconds:     r.FormValue("expAtSeconds") == "yes",
	}
	var err1, err2 error
	fs.ErrorRate, err1 = parseRate(r.FormValue("errorRate"))
	fs.DropRate, err2 = parseRate(r.FormValue("dropRate"))
	if err := errors.Join(err1, err2, s.applySettings(fs)); err != nil {
		s.views.notice(w, http.StatusBadRequest, "Faults not changed", err.Error())
		return
	}
	http.Redirect(w, r, "/_sandbox/admin", http.StatusSeeOther)
}

func parseRate(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	return strconv.ParseFloat(s, 64)
}

// handleAdminListJSON lists the applications, without their data.
func (s *Server) handleAdminListJSON(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Applications())
}

// handleAdminGetJSON returns one application with its data.
func (s *Server) handleAdminGetJSON(w http.ResponseWriter, r *http.Request) {
	a, ok := s.Application(r.PathValue("applicationId"))
	if !ok {
		writeAPIError(w, newError(http.StatusNotFound, "application not found"))
		return
	}
	writeJSON(w, http.StatusOK, a)
}

// handleAdminStatusJSON moves an application: {"status": "declined"}.
func (s *Server) handleAdminStatusJSON(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Status Status `json:"status"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxJSONBody)).Decode(&body); err != nil {
		writeAPIError(w, newError(http.StatusBadRequest, "body must be {\"status\": \"...\"}"))
		return
	}
	id := r.PathValue("applicationId")
	if err := s.SetStatus(id, body.Status); err != nil {
		writeAPIError(w, newError(adminErrorStatus(err), "%s", err.Error()))
		return
	}
	a, _ := s.Application(id)
	writeJSON(w, http.StatusOK, a)
}

// adminErrorStatus maps a SetStatus error to a status code.
func adminErrorStatus(err error) int {
	switch {
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrTransition):
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

// handleAdminFaultsGetJSON returns the fault and answer-shape settings.
func (s *Server) handleAdminFaultsGetJSON(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	settings := settingsOf(s.faults, s.compat)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, settings)
}

// handleAdminFaultsPutJSON replaces the fault and answer-shape settings.
func (s *Server) handleAdminFaultsPutJSON(w http.ResponseWriter, r *http.Request) {
	var fs faultSettings
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxJSONBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fs); err != nil {
		writeAPIError(w, newError(http.StatusBadRequest, "invalid settings: %v", err))
		return
	}
	if err := s.applySettings(fs); err != nil {
		writeAPIError(w, newError(http.StatusBadRequest, "%s", err.Error()))
		return
	}
	s.handleAdminFaultsGetJSON(w, r)
}

// handleAdminClockJSON moves a manual clock forward: {"by": "2m"}.
func (s *Server) handleAdminClockJSON(w http.ResponseWriter, r *http.Request) {
	mc, ok := s.opts.Clock.(*ManualClock)
	if !ok {
		writeAPIError(w, newError(http.StatusConflict, "the sandbox runs on the wall clock"))
		return
	}
	var body struct {
		By string `json:"by"`
	}
	_ = json.NewDecoder(http.MaxBytesReader(w, r.Body, maxJSONBody)).Decode(&body)
	d, err := time.ParseDuration(body.By)
	if err != nil || d < 0 {
		writeAPIError(w, newError(http.StatusBadRequest, "by must be a positive duration such as \"2m\""))
		return
	}
	mc.Advance(d)
	writeJSON(w, http.StatusOK, map[string]time.Time{"now": mc.Now()})
}
