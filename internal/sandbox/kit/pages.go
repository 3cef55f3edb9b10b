package kit

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"time"
)

//go:embed templates/layout.html templates/sandbox.css templates/sandbox.js
var kitFS embed.FS

// StylesheetPath is where the sandbox pages' one stylesheet is served.
const StylesheetPath = "/_sandbox/static/sandbox.css"

// ScriptPath is where the sandbox pages' one script is served: it only
// rewrites <time> elements in the viewer's time zone; every page works
// without it.
const ScriptPath = "/_sandbox/static/sandbox.js"

// pageFuncs are the template functions every page has: "when" writes a
// time as a <time> element in UTC, which the script shows in the viewer's
// zone; "duration" a length of time in words.
var pageFuncs = template.FuncMap{
	"duration": DurationWords,
	"when": func(t time.Time) template.HTML {
		if t.IsZero() {
			return ""
		}
		u := t.UTC()
		return template.HTML(`<time datetime="` + u.Format(time.RFC3339) + `">` +
			template.HTMLEscapeString(u.Format("2006-01-02 15:04:05")) + ` UTC</time>`)
	},
}

// Pages renders an area's HTML pages inside the shared layout. Each page is
// parsed once, at start-up, so a broken template fails New, not a user.
type Pages struct {
	product, banner string
	admin           bool
	pages           map[string]*template.Template
	cssURL, jsURL   string
}

// PageSet describes an area's pages: Product and Banner head every page
// ("Account application", "a rehearsal of ..."); Admin adds the admin
// navigation; Files holds "templates/<name>.html" for each name, each
// defining "content", and for each of Partials, whose templates every page
// can use.
type PageSet struct {
	Product, Banner string
	Admin           bool
	Files           fs.FS
	Names           []string
	Partials        []string
	Funcs           template.FuncMap
}

// NewPages parses the pages of set.
func NewPages(set PageSet) (*Pages, error) {
	css, err := kitFS.ReadFile("templates/sandbox.css")
	if err != nil {
		return nil, err
	}
	js, err := kitFS.ReadFile("templates/sandbox.js")
	if err != nil {
		return nil, err
	}
	sum, jsSum := sha256.Sum256(css), sha256.Sum256(js)
	p := &Pages{product: set.Product, banner: set.Banner, admin: set.Admin, pages: map[string]*template.Template{},
		cssURL: StylesheetPath + "?v=" + hex.EncodeToString(sum[:6]), jsURL: ScriptPath + "?v=" + hex.EncodeToString(jsSum[:6])}
	layout, err := template.New("layout").Funcs(pageFuncs).Funcs(set.Funcs).ParseFS(kitFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("sandbox layout: %w", err)
	}
	for _, name := range set.Partials {
		if _, err := layout.ParseFS(set.Files, "templates/"+name+".html"); err != nil {
			return nil, fmt.Errorf("sandbox template %s: %w", name, err)
		}
	}
	p.pages["notice"] = template.Must(layout.Clone())
	template.Must(p.pages["notice"].New("content").Parse(`{{template "notice" .}}`))
	for _, name := range set.Names {
		t := template.Must(layout.Clone())
		if _, err := t.ParseFS(set.Files, "templates/"+name+".html"); err != nil {
			return nil, fmt.Errorf("sandbox template %s: %w", name, err)
		}
		p.pages[name] = t
	}
	return p, nil
}

// layoutData is what the layout needs around a page's own data.
type layoutData struct {
	Title, Product, Banner, CSS, JS string
	Admin                           bool
	Data                            any
}

// Render writes a page. It renders into a buffer first so a template error
// becomes a clean 500 instead of half a page.
func (p *Pages) Render(w http.ResponseWriter, status int, page, title string, data any) {
	t, ok := p.pages[page]
	if !ok {
		http.Error(w, "no such page: "+page, http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	err := t.ExecuteTemplate(&buf, "layout", layoutData{Title: title, Product: p.product, Banner: p.banner,
		CSS: p.cssURL, JS: p.jsURL, Admin: p.admin, Data: data})
	if err != nil {
		http.Error(w, "template error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// Notice renders a page with a heading and one message.
func (p *Pages) Notice(w http.ResponseWriter, status int, heading, message string) {
	p.Render(w, status, "notice", heading, struct{ Heading, Message string }{heading, message})
}

// ServeScript serves the one script of every sandbox page.
func ServeScript(w http.ResponseWriter, _ *http.Request) {
	js, _ := kitFS.ReadFile("templates/sandbox.js")
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	_, _ = w.Write(js)
}

// ServeStylesheet serves the one stylesheet of every sandbox page.
func ServeStylesheet(w http.ResponseWriter, _ *http.Request) {
	css, _ := kitFS.ReadFile("templates/sandbox.css")
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	_, _ = w.Write(css)
}
