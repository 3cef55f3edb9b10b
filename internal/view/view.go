// Package view renders the portal's pages: a layout plus one page template, or a
// named partial alone as an htmx fragment. Every page gets the same envelope with
// the signed-in user, the CSRF token and flash messages.
package view

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/models"
)

// Request-scoped values that middleware stores on the echo context.
const (
	ctxUser    = "portal.user"
	ctxCSRF    = "portal.csrf"
	ctxSession = "portal.session"
)

// MarkSessionLoaded records that the request carries a session, so pages may
// read and write flashes. Machine routes (assets, webhooks) have none.
func MarkSessionLoaded(c echo.Context) { c.Set(ctxSession, true) }

func hasSession(c echo.Context) bool { ok, _ := c.Get(ctxSession).(bool); return ok }

// SetUser records the signed-in user for the rest of the request.
func SetUser(c echo.Context, u *models.User) { c.Set(ctxUser, u) }

// CurrentUser returns the signed-in user, or nil.
func CurrentUser(c echo.Context) *models.User {
	u, _ := c.Get(ctxUser).(*models.User)
	return u
}

// SetCSRFToken records the request's CSRF token for forms and htmx.
func SetCSRFToken(c echo.Context, token string) { c.Set(ctxCSRF, token) }

// CSRFToken returns the request's CSRF token.
func CSRFToken(c echo.Context) string {
	s, _ := c.Get(ctxCSRF).(string)
	return s
}

// Flash is a one-time message shown on the next page.
type Flash struct {
	Kind    string // "success", "error" or "info"
	Message string
}

// Page is what every template receives as its dot.
type Page struct {
	Title        string
	User         *models.User
	CSRFToken    string
	Flashes      []Flash
	ResellerName string
	Path         string
	Data         any
}

// Renderer renders pages and fragments from the parsed templates.
type Renderer struct {
	pages map[string]*page
	// shared holds the layout and the partials, parsed once and never executed: each
	// page is a clone of it (html/template copies every tree it clones) with the page's
	// own file added. partials is the clone fragments render from.
	shared       *template.Template
	partials     *template.Template
	fsys         fs.FS
	sessions     *scs.SessionManager
	resellerName string
	zones        zones
	// buffers are reused between renders: a page is tens of kilobytes, and growing a
	// fresh buffer to that size on every request was a fifth of the garbage of a list page.
	buffers sync.Pool
	// fragments serves the template function "cached" (fragments.go).
	fragments fragments
}

// New parses every template in fsys once; a broken template fails here, at
// start-up, rather than in front of a user. A page is put together with the
// shared templates (a clone of all of them, about 0.7 MiB) when it is first
// rendered: cloning all 37 at start took most of the start's CPU and 25 MiB
// of memory, most of it for pages a replica may never show.
func New(fsys fs.FS, funcs template.FuncMap, sessions *scs.SessionManager, resellerName string) (*Renderer, error) {
	r := &Renderer{pages: map[string]*page{}, sessions: sessions, resellerName: resellerName, fsys: fsys}
	all := template.FuncMap{
		// cached renders a partial once per distinct dot: {{cached "name" dot}} (fragments.go).
		"cached": func(name string, dot any) (template.HTML, error) { return r.fragments.render(r.partials, name, dot) },
	}
	for k, v := range baseFuncs() {
		all[k] = v
	}
	for k, v := range funcs {
		all[k] = v
	}
	files, err := fs.Glob(fsys, "*/*.html")
	if err != nil {
		return nil, err
	}
	var shared, pages []string
	for _, f := range files {
		if strings.HasPrefix(f, "layout/") || strings.HasPrefix(path.Base(f), "_") {
			shared = append(shared, f)
		} else {
			pages = append(pages, f)
		}
	}
	r.shared = template.New("").Funcs(all)
	if len(shared) > 0 {
		if r.shared, err = r.shared.ParseFS(fsys, shared...); err != nil {
			return nil, fmt.Errorf("parse shared templates: %w", err)
		}
	}
	if r.partials, err = r.shared.Clone(); err != nil {
		return nil, err
	}
	for _, p := range pages {
		// Parsed alone here for its syntax and the functions it names; put together
		// with the shared templates on first use.
		if _, err := template.New(p).Funcs(all).ParseFS(fsys, p); err != nil {
			return nil, fmt.Errorf("parse %s: %w", p, err)
		}
		r.pages[strings.TrimSuffix(p, ".html")] = &page{file: p}
	}
	return r, nil
}

// page is one page's template: the shared templates and the page's file,
// put together on first use.
type page struct {
	file string
	once sync.Once
	t    *template.Template
	err  error
}

// template returns the page's template, putting it together the first time.
func (r *Renderer) template(p *page) (*template.Template, error) {
	p.once.Do(func() {
		t, err := r.shared.Clone()
		if err == nil {
			t, err = t.ParseFS(r.fsys, p.file)
		}
		p.t, p.err = t, err
	})
	return p.t, p.err
}

// Page renders the page template name (e.g. "auth/login") inside the layout.
func (r *Renderer) Page(c echo.Context, status int, name, title string, data any) error {
	p, ok := r.pages[name]
	if !ok {
		return fmt.Errorf("view: no page %q", name)
	}
	t, err := r.template(p)
	if err != nil {
		return fmt.Errorf("view: page %q: %w", name, err)
	}
	return r.execute(c, status, t, "layout", r.envelope(c, title, data))
}

// Fragment renders one named partial alone, for htmx swaps.
func (r *Renderer) Fragment(c echo.Context, status int, name string, data any) error {
	return r.execute(c, status, r.partials, name, r.envelope(c, "", data))
}

// Flash queues a message for the next rendered page.
func (r *Renderer) Flash(c echo.Context, kind, message string) {
	if !hasSession(c) {
		return
	}
	ctx := c.Request().Context()
	flashes, _ := r.sessions.Get(ctx, "flashes").([]Flash)
	r.sessions.Put(ctx, "flashes", append(flashes, Flash{Kind: kind, Message: message}))
}

func (r *Renderer) envelope(c echo.Context, title string, data any) Page {
	p := Page{
		Title:        title,
		User:         CurrentUser(c),
		CSRFToken:    CSRFToken(c),
		ResellerName: r.resellerName,
		Path:         c.Request().URL.Path,
		Data:         data,
	}
	if hasSession(c) {
		if flashes, ok := r.sessions.Pop(c.Request().Context(), "flashes").([]Flash); ok {
			p.Flashes = flashes
		}
	}
	return p
}

func (r *Renderer) execute(c echo.Context, status int, t *template.Template, name string, data Page) error {
	// Render into a buffer first so a template error becomes a clean 500
	// instead of half a page.
	buf, _ := r.buffers.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			buf.Reset()
			r.buffers.Put(buf)
		}
	}()
	if err := t.ExecuteTemplate(buf, name, data); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	// The response copies the bytes before HTMLBlob returns, so the buffer can go back.
	return c.HTMLBlob(status, localize(buf.Bytes(), r.viewersZone(c)))
}

// viewersZone is the signed-in user's time zone, UTC for nobody.
func (r *Renderer) viewersZone(c echo.Context) *time.Location {
	if u := CurrentUser(c); u != nil {
		return r.zones.location(u.TimeZone)
	}
	return time.UTC
}

// Localize writes the instants marked in text (LocalTime, LocalClock) in the
// viewer's zone, for text sent outside a rendered page: an htmx request's
// plain-text error, a JSON message. Pages and fragments are localized as
// they are rendered.
func (r *Renderer) Localize(c echo.Context, text string) string {
	return string(localize([]byte(text), r.viewersZone(c)))
}

// maxPooledBuffer keeps an unusually large page's buffer from staying in the pool.
const maxPooledBuffer = 1 << 20

// StatusText is http.StatusText, exposed for templates of error pages.
func StatusText(code int) string { return http.StatusText(code) }
