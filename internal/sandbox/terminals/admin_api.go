package terminals

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// The admin JSON under /_sandbox/admin/api/terminals. Errors are
// {"message": "..."} with 400, 404 or 500.

// writeAdminError answers an admin request's failure.
func (a *Area) writeAdminError(w http.ResponseWriter, err error) {
	var ae *adminError
	if errors.As(err, &ae) {
		kit.WriteJSON(w, ae.status, map[string]string{"message": ae.msg})
		return
	}
	a.env.Log.Error("terminals admin request failed", "err", err)
	kit.WriteJSON(w, http.StatusInternalServerError, map[string]string{"message": "internal error"})
}

// decodeAdmin reads a JSON body strictly into v (kit.Body's rules and
// limit); a refusal is an *adminError.
func decodeAdmin(r *http.Request, w http.ResponseWriter, v any) error {
	var be *kit.BodyError
	if err := (kit.Body{Strict: true}).Read(w, r, v); errors.As(err, &be) {
		return &adminError{be.Status, be.Message}
	}
	return nil
}

func (a *Area) apiListLocations(w http.ResponseWriter, _ *http.Request) {
	locs, _, err := a.overview("", 0)
	if err != nil {
		a.writeAdminError(w, err)
		return
	}
	if locs == nil {
		locs = []locationView{}
	}
	kit.WriteJSON(w, http.StatusOK, locs)
}

func (a *Area) apiGetLocation(w http.ResponseWriter, r *http.Request) {
	locs, _, err := a.overview(r.PathValue("locationId"), 0)
	switch {
	case err != nil:
		a.writeAdminError(w, err)
	case len(locs) == 0:
		a.writeAdminError(w, &adminError{http.StatusNotFound, "location not found"})
	default:
		kit.WriteJSON(w, http.StatusOK, locs[0])
	}
}

func (a *Area) apiCreateLocation(w http.ResponseWriter, r *http.Request) {
	var req createLocationRequest
	if err := decodeAdmin(r, w, &req); err != nil {
		a.writeAdminError(w, err)
		return
	}
	v, err := a.adminCreateLocation(req)
	if err != nil {
		a.writeAdminError(w, err)
		return
	}
	kit.WriteJSON(w, http.StatusCreated, v)
}

func (a *Area) apiUpdateDevice(w http.ResponseWriter, r *http.Request) {
	var u deviceUpdate
	if err := decodeAdmin(r, w, &u); err != nil {
		a.writeAdminError(w, err)
		return
	}
	v, err := a.adminUpdateDevice(r.PathValue("locationId"), r.PathValue("deviceName"), u)
	if err != nil {
		a.writeAdminError(w, err)
		return
	}
	kit.WriteJSON(w, http.StatusOK, v)
}

// apiListTransactions answers ?locationId= (optional) and ?limit= (1 to
// 500, default 50), newest first.
func (a *Area) apiListTransactions(w http.ResponseWriter, r *http.Request) {
	limit := 50
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 500 {
			a.writeAdminError(w, &adminError{http.StatusBadRequest, "limit: a whole number from 1 to 500"})
			return
		}
		limit = n
	}
	_, txs, err := a.overview(r.URL.Query().Get("locationId"), limit)
	if err != nil {
		a.writeAdminError(w, err)
		return
	}
	if txs == nil {
		txs = []transactionView{}
	}
	kit.WriteJSON(w, http.StatusOK, txs)
}

func (a *Area) apiGetTransaction(w http.ResponseWriter, r *http.Request) {
	var t *transaction
	err := a.env.Store.DB.View(func(tx *bolt.Tx) error {
		var err error
		t, err = getTransaction(tx, r.PathValue("uniqueTransId"))
		return err
	})
	if errors.Is(err, kit.ErrNotFound) {
		err = &adminError{http.StatusNotFound, "transaction not found"}
	}
	if err != nil {
		a.writeAdminError(w, err)
		return
	}
	kit.WriteJSON(w, http.StatusOK, transactionViewOf(t, a.env.Clock.Now()))
}

// settingsJSON is Settings with durations as Go duration text ("3s").
type settingsJSON struct {
	CardholderDelay string `json:"cardholderDelay"`
	HostDelay       string `json:"hostDelay"`
	TerminalTimeout string `json:"terminalTimeout"`
}

func (a *Area) apiGetSettings(w http.ResponseWriter, _ *http.Request) {
	s := a.Settings()
	kit.WriteJSON(w, http.StatusOK, settingsJSON{s.CardholderDelay.String(), s.HostDelay.String(), s.TerminalTimeout.String()})
}

// apiPutSettings replaces the delays; an empty or absent one keeps its
// value.
func (a *Area) apiPutSettings(w http.ResponseWriter, r *http.Request) {
	var in settingsJSON
	if err := decodeAdmin(r, w, &in); err != nil {
		a.writeAdminError(w, err)
		return
	}
	s, err := a.parseSettings(in)
	if err == nil {
		err = a.SetSettings(s)
	}
	if err != nil {
		a.writeAdminError(w, &adminError{http.StatusBadRequest, err.Error()})
		return
	}
	a.apiGetSettings(w, r)
}

// parseSettings reads duration texts over the settings in force.
func (a *Area) parseSettings(in settingsJSON) (Settings, error) {
	s := a.Settings()
	for _, f := range []struct {
		name string
		text string
		dst  *time.Duration
	}{{"cardholderDelay", in.CardholderDelay, &s.CardholderDelay}, {"hostDelay", in.HostDelay, &s.HostDelay},
		{"terminalTimeout", in.TerminalTimeout, &s.TerminalTimeout}} {
		if f.text == "" {
			continue
		}
		d, err := time.ParseDuration(f.text)
		if err != nil || d < 0 || d > time.Hour {
			return s, errors.New(f.name + ": a duration such as 3s, from 0 to 1h")
		}
		*f.dst = d
	}
	return s, s.validate()
}
