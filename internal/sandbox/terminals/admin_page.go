package terminals

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

//go:embed templates/terminals.html
var templateFS embed.FS

// pagePath is the admin page of the area.
const pagePath = "/_sandbox/admin/terminals"

// newPages parses the admin page once.
func newPages() (*kit.Pages, error) {
	return kit.NewPages(kit.PageSet{
		Product: "Terminal cloud", Banner: "a rehearsal of the processor's terminal cloud: no card is charged",
		Admin: true, Files: templateFS, Names: []string{"terminals"},
		Funcs: template.FuncMap{
			"mask":  mask,
			"short": func(id string) string { return id[:min(len(id), 12)] },
		},
	})
}

// pageData is what the admin page shows.
type pageData struct {
	Now          time.Time
	Settings     Settings
	Notice       string
	Locations    []locationView
	Transactions []transactionView
	Cards        []testCard
	Form         createLocationRequest
	Errors       map[string]string
}

// notices are the messages a redirect may ask the page to show.
var notices = map[string]string{
	"created":  "Location created.",
	"device":   "Device updated.",
	"settings": "Delays saved.",
}

func (a *Area) renderPage(w http.ResponseWriter, status int, data pageData) {
	locs, txs, err := a.overview("", 50)
	if err != nil {
		a.env.Log.Error("terminals admin page failed", "err", err)
		a.pages.Notice(w, http.StatusInternalServerError, "Terminal cloud", "The sandbox state could not be read.")
		return
	}
	data.Now, data.Settings, data.Locations, data.Transactions, data.Cards = a.env.Clock.Now(), a.Settings(), locs, txs, testCards
	a.pages.Render(w, status, "terminals", "Terminal cloud", data)
}

func (a *Area) handleAdminPage(w http.ResponseWriter, r *http.Request) {
	a.renderPage(w, http.StatusOK, pageData{Notice: notices[r.URL.Query().Get("done")]})
}

// redirectDone answers a form post with a redirect to the page (post,
// redirect, get).
func redirectDone(w http.ResponseWriter, r *http.Request, what string) {
	http.Redirect(w, r, pagePath+"?done="+url.QueryEscape(what), http.StatusSeeOther)
}

func (a *Area) handleAdminCreateForm(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	req := createLocationRequest{
		Name: r.PostForm.Get("name"), ApplicationID: r.PostForm.Get("applicationId"),
		Production: r.PostForm.Get("production") != "", UseShortUniqueTransID: r.PostForm.Get("useShortUniqueTransId") != "",
		Level2Enabled: r.PostForm.Get("level2Enabled") != "",
	}
	_, err := a.adminCreateLocation(req)
	var ae *adminError
	switch {
	case errors.As(err, &ae):
		a.renderPage(w, http.StatusUnprocessableEntity, pageData{Form: req, Errors: map[string]string{"name": "Give a name of at most 80 characters."}})
	case err != nil:
		a.writeAdminError(w, err)
	default:
		redirectDone(w, r, "created")
	}
}

func (a *Area) handleAdminDeviceForm(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	on, off := true, false
	var u deviceUpdate
	switch r.PostForm.Get("action") {
	case "online":
		u.Online = &on
	case "offline":
		u.Online = &off
	case "dup-on":
		u.DuplicateDetection = &on
	case "dup-off":
		u.DuplicateDetection = &off
	case "next-card":
		card := r.PostForm.Get("card")
		u.NextCard = &card
	default:
		http.Error(w, "unknown action", http.StatusBadRequest)
		return
	}
	_, err := a.adminUpdateDevice(r.PathValue("locationId"), r.PathValue("deviceName"), u)
	var ae *adminError
	switch {
	case errors.As(err, &ae):
		a.pages.Notice(w, ae.status, "Device not updated", ae.msg)
	case err != nil:
		a.writeAdminError(w, err)
	default:
		redirectDone(w, r, "device")
	}
}

func (a *Area) handleAdminSettingsForm(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	s, err := a.parseSettings(settingsJSON{CardholderDelay: r.PostForm.Get("cardholderDelay"),
		HostDelay: r.PostForm.Get("hostDelay"), TerminalTimeout: r.PostForm.Get("terminalTimeout")})
	if err == nil {
		err = a.SetSettings(s)
	}
	if err != nil {
		a.renderPage(w, http.StatusUnprocessableEntity, pageData{Errors: map[string]string{"settings": fmt.Sprint(err)}})
		return
	}
	redirectDone(w, r, "settings")
}
