package sandbox

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

//go:embed templates/*.html
var templateFS embed.FS

// routes adds every area's routes and the server's own to mux. Reading it
// gives the sandbox's site map (each area's Mount lists its own).
func (s *Server) routes(mux *http.ServeMux) {
	s.accounts.Mount(mux)
	if s.payments != nil {
		s.payments.Mount(mux)
	}
	if s.terminals != nil {
		s.terminals.Mount(mux)
	}
	guard := s.env.Admin.Wrap
	sameOrigin := func(h http.HandlerFunc) http.HandlerFunc { return kit.SameOrigin(s.publicURL, h) }

	mux.HandleFunc("GET "+kit.StylesheetPath, kit.ServeStylesheet)
	mux.HandleFunc("GET "+kit.ScriptPath, kit.ServeScript)

	// The admin overview: clock, faults of every area, links to the areas.
	mux.HandleFunc("GET /_sandbox/admin", guard(s.handleOverview))
	mux.HandleFunc("POST /_sandbox/admin/clock/advance", guard(sameOrigin(s.handleClockForm)))
	mux.HandleFunc("POST /_sandbox/admin/faults", guard(sameOrigin(s.handleFaultsForm)))
	mux.HandleFunc("GET /_sandbox/admin/api/clock", guard(s.handleClockJSON))
	mux.HandleFunc("POST /_sandbox/admin/api/clock/advance", guard(s.handleClockAdvanceJSON))
	mux.HandleFunc("GET /_sandbox/admin/api/faults", guard(s.handleFaultsGetJSON))
	mux.HandleFunc("PUT /_sandbox/admin/api/faults", guard(s.handleFaultsPutJSON))
	mux.HandleFunc("GET /_sandbox/admin/api/merchants/{applicationId}/credentials", guard(s.handleCredentialsJSON))
}

func parseOverview() (*kit.Pages, error) {
	return kit.NewPages(kit.PageSet{Product: "Upstream", Banner: "the operator's back office, for rehearsals.",
		Admin: true, Files: templateFS, Names: []string{"overview"}})
}

// faultSettings are the shared faults as the admin surface reads and
// writes them: durations as Go duration text ("250ms"), empty for none.
type faultSettings struct {
	Latency         string  `json:"latency"`
	LatencyJitter   string  `json:"latencyJitter"`
	ErrorRate       float64 `json:"errorRate"`
	DropRate        float64 `json:"dropRate"`
	ActThenDropRate float64 `json:"actThenDropRate"`
	RetryAfter      string  `json:"retryAfter"`
}

func settingsOf(f kit.Faults) faultSettings {
	text := func(d time.Duration) string {
		if d == 0 {
			return ""
		}
		return d.String()
	}
	return faultSettings{Latency: text(f.Latency), LatencyJitter: text(f.LatencyJitter), ErrorRate: f.ErrorRate,
		DropRate: f.DropRate, ActThenDropRate: f.ActThenDropRate, RetryAfter: text(f.RetryAfter)}
}

// faults checks settings and returns the faults they describe.
func (fs faultSettings) faults() (kit.Faults, error) {
	f := kit.Faults{ErrorRate: fs.ErrorRate, DropRate: fs.DropRate, ActThenDropRate: fs.ActThenDropRate}
	for _, p := range []struct {
		name, text string
		dst        *time.Duration
	}{
		{"latency", fs.Latency, &f.Latency}, {"latencyJitter", fs.LatencyJitter, &f.LatencyJitter},
		{"retryAfter", fs.RetryAfter, &f.RetryAfter},
	} {
		if p.text == "" {
			continue
		}
		d, err := time.ParseDuration(p.text)
		if err != nil {
			return f, fmt.Errorf("%s: %q is not a duration such as 250ms or 10s", p.name, p.text)
		}
		*p.dst = d
	}
	return f, f.Validate()
}

// overviewView is the data of the overview page.
type overviewView struct {
	Now                 time.Time
	Manual              bool
	Faults              faultSettings
	Notice, Error       string
	Applications        int
	Payments, Terminals bool
}

// handleOverview shows the clock, the faults of every area and the areas.
func (s *Server) handleOverview(w http.ResponseWriter, r *http.Request) {
	_, manual := s.env.Clock.(*kit.ManualClock)
	s.pages.Render(w, http.StatusOK, "overview", "Sandbox admin", overviewView{
		Now: s.env.Clock.Now(), Manual: manual, Faults: settingsOf(s.env.Faults.Get()),
		Notice: r.URL.Query().Get("notice"), Error: r.URL.Query().Get("error"),
		Applications: s.accounts.StartedCount(), Payments: s.payments != nil, Terminals: s.terminals != nil,
	})
}

// back redirects to the overview with a notice or an error.
func back(w http.ResponseWriter, r *http.Request, key, msg, anchor string) {
	http.Redirect(w, r, "/_sandbox/admin?"+url.Values{key: {msg}}.Encode()+anchor, http.StatusSeeOther)
}

// handleClockForm moves the manual clock from the overview.
func (s *Server) handleClockForm(w http.ResponseWriter, r *http.Request) {
	d, err := time.ParseDuration(r.FormValue("by"))
	switch {
	case err != nil || d <= 0:
		back(w, r, "error", "Clock not moved: give a positive duration such as 2m, 1h or 24h.", "#clock")
	case !s.Advance(d):
		back(w, r, "error", "Clock not moved: the sandbox runs on the wall clock.", "#clock")
	default:
		back(w, r, "notice", "Clock moved forward by "+d.String()+"; what fell due has happened.", "#clock")
	}
}

// handleFaultsForm saves the faults from the overview.
func (s *Server) handleFaultsForm(w http.ResponseWriter, r *http.Request) {
	fs := faultSettings{Latency: r.FormValue("latency"), LatencyJitter: r.FormValue("latencyJitter"),
		RetryAfter: r.FormValue("retryAfter")}
	var errs []error
	for _, p := range []struct {
		name string
		dst  *float64
	}{{"errorRate", &fs.ErrorRate}, {"dropRate", &fs.DropRate}, {"actThenDropRate", &fs.ActThenDropRate}} {
		if v := r.FormValue(p.name); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %q is not a number between 0 and 1", p.name, v))
			}
			*p.dst = f
		}
	}
	f, err := fs.faults()
	if err = errors.Join(append(errs, err)...); err == nil {
		err = s.env.Faults.Set(f)
	}
	if err != nil {
		w.Header().Set("Cache-Control", "no-store")
		s.pages.Notice(w, http.StatusBadRequest, "Faults not changed", err.Error())
		return
	}
	back(w, r, "notice", "Faults saved.", "#faults")
}

// handleClockJSON reads the clock: {"now": ..., "manual": true}.
func (s *Server) handleClockJSON(w http.ResponseWriter, r *http.Request) {
	_, manual := s.env.Clock.(*kit.ManualClock)
	kit.WriteJSON(w, http.StatusOK, map[string]any{"now": s.env.Clock.Now(), "manual": manual})
}

// handleClockAdvanceJSON moves a manual clock forward: {"by": "2m"}.
func (s *Server) handleClockAdvanceJSON(w http.ResponseWriter, r *http.Request) {
	var body struct {
		By string `json:"by"`
	}
	if err := (kit.Body{Strict: true}).Read(w, r, &body); err != nil {
		writeAdminError(w, err)
		return
	}
	d, err := time.ParseDuration(body.By)
	if err != nil || d <= 0 {
		kit.WriteJSON(w, http.StatusBadRequest, map[string]string{"message": `by must be a positive duration such as "2m"`})
		return
	}
	if !s.Advance(d) {
		kit.WriteJSON(w, http.StatusConflict, map[string]string{"message": "the sandbox runs on the wall clock; start it with PORTAL_SANDBOX_CLOCK=manual"})
		return
	}
	kit.WriteJSON(w, http.StatusOK, map[string]time.Time{"now": s.env.Clock.Now()})
}

// handleFaultsGetJSON returns the faults of every area.
func (s *Server) handleFaultsGetJSON(w http.ResponseWriter, r *http.Request) {
	kit.WriteJSON(w, http.StatusOK, settingsOf(s.env.Faults.Get()))
}

// areaSettingKeys moved from the faults to area A's settings.
var areaSettingKeys = []string{"urlLifetime", "omitPresignedUrl", "expAtSeconds"}

// writeAdminError answers a refused admin body (a *kit.BodyError) as the
// admin JSON's errors are: {"message": "..."}.
func writeAdminError(w http.ResponseWriter, err error) {
	be := &kit.BodyError{Status: http.StatusBadRequest, Message: "the request body could not be read"}
	errors.As(err, &be)
	kit.WriteJSON(w, be.Status, map[string]string{"message": be.Message})
}

// handleFaultsPutJSON replaces the faults of every area.
func (s *Server) handleFaultsPutJSON(w http.ResponseWriter, r *http.Request) {
	rules := kit.Body{Strict: true}
	raw, err := rules.Bytes(w, r)
	if err != nil {
		writeAdminError(w, err)
		return
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw, &keys) == nil {
		for _, k := range areaSettingKeys {
			if _, ok := keys[k]; ok {
				kit.WriteJSON(w, http.StatusBadRequest, map[string]string{"message": k + ": an account application setting: PUT it to /_sandbox/admin/api/accounts/settings"})
				return
			}
		}
	}
	var fs faultSettings
	if err := rules.Decode(raw, &fs); err != nil {
		writeAdminError(w, err)
		return
	}
	f, err := fs.faults()
	if err == nil {
		err = s.env.Faults.Set(f)
	}
	if err != nil {
		kit.WriteJSON(w, http.StatusBadRequest, map[string]string{"message": err.Error()})
		return
	}
	s.handleFaultsGetJSON(w, r)
}
