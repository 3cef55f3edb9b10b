package accounts

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
)

//go:embed templates/*.html templates/sandbox.css
var templateFS embed.FS

// stylesheetPath is where the pages' stylesheet is served.
const stylesheetPath = "/_sandbox/static/sandbox.css"

// pageNames are the templates besides the layout, one per page.
var pageNames = []string{"details", "terms", "done", "notice", "admin"}

// views holds the parsed pages, so a broken template fails New, not a user.
type views struct {
	pages  map[string]*template.Template
	css    []byte
	cssURL string // fingerprinted, so it can be cached for long
}

// layoutData is what the layout needs around a page's own data.
type layoutData struct {
	Title string
	CSS   string
	Data  any
}

func parseViews() (*views, error) {
	css, err := templateFS.ReadFile("templates/sandbox.css")
	if err != nil {
		return nil, fmt.Errorf("sandbox: stylesheet: %w", err)
	}
	sum := sha256.Sum256(css)
	v := &views{pages: map[string]*template.Template{}, css: css,
		cssURL: stylesheetPath + "?v=" + hex.EncodeToString(sum[:6])}
	for _, name := range pageNames {
		t, err := template.New(name).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("sandbox: template %s: %w", name, err)
		}
		v.pages[name] = t
	}
	return v, nil
}

// render writes a page. It renders into a buffer first so a template error
// becomes a clean 500 instead of half a page.
func (v *views) render(w http.ResponseWriter, status int, page, title string, data any) {
	var buf bytes.Buffer
	if err := v.pages[page].ExecuteTemplate(&buf, "layout", layoutData{Title: title, CSS: v.cssURL, Data: data}); err != nil {
		http.Error(w, "template error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// notice renders a page with a heading and one message.
func (v *views) notice(w http.ResponseWriter, status int, heading, message string) {
	v.render(w, status, "notice", heading, struct{ Heading, Message string }{heading, message})
}

// handleStylesheet serves the pages' stylesheet.
func (s *Server) handleStylesheet(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	_, _ = w.Write(s.views.css)
}
