package apptest

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Client is a cookie-keeping HTTP client that behaves like the portal's pages:
// it remembers the CSRF token of the last page it saw and sends it back. It
// is safe for concurrent use (tests send requests at once).
type Client struct {
	t    testing.TB
	env  *Env
	base string
	http *http.Client
	mu   sync.Mutex
	csrf string
}

// Response is a read response.
type Response struct {
	Status   int
	Body     string
	Header   http.Header
	Location string
}

// Client returns a fresh client with no session.
func (e *Env) Client(t testing.TB) *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{t: t, env: e, base: e.URL, http: &http.Client{
		Jar: jar,
		// Redirects are returned, not followed, so tests can assert on them.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

var csrfPattern = regexp.MustCompile(`name="csrf_token" value="([^"]+)"|"X-CSRF-Token": "([^"]+)"`)

// KeepConnections lets the client keep up to n idle connections to the
// portal, for a benchmark sending n requests at once (net/http keeps two and
// would dial again for every other request).
func (c *Client) KeepConnections(n int) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = n, n
	c.http.Transport = tr
}

// SetCookie stores a cookie for the portal, as a page's script would (app.js
// keeps the browser's time zone in one).
func (c *Client) SetCookie(name, value string) {
	u, err := url.Parse(c.base)
	if err != nil {
		c.t.Fatal(err)
	}
	c.http.Jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
}

// Get fetches path and remembers the page's CSRF token.
func (c *Client) Get(path string) Response {
	c.t.Helper()
	return c.Do(http.MethodGet, path, nil, nil)
}

// PostForm posts form values with the remembered CSRF token, loading a page
// first when the client has none yet.
func (c *Client) PostForm(path string, values url.Values) Response {
	c.t.Helper()
	if c.CSRF() == "" {
		c.Get("/login")
	}
	if values == nil {
		values = url.Values{}
	}
	if !values.Has("csrf_token") {
		values.Set("csrf_token", c.CSRF())
	}
	return c.Do(http.MethodPost, path, strings.NewReader(values.Encode()), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
}

// PostFormNoToken posts without any CSRF token.
func (c *Client) PostFormNoToken(path string, values url.Values) Response {
	c.t.Helper()
	return c.Do(http.MethodPost, path, strings.NewReader(values.Encode()), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
}

// Cookie returns the value of the named cookie the client holds for the
// portal, or "".
func (c *Client) Cookie(name string) string {
	u, err := url.Parse(c.base)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, ck := range c.http.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// CSRF returns the remembered CSRF token.
func (c *Client) CSRF() string { c.mu.Lock(); defer c.mu.Unlock(); return c.csrf }

// Do sends any request; header may carry X-CSRF-Token or HX-Request.
func (c *Client) Do(method, path string, body io.Reader, header http.Header) Response {
	c.t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if m := csrfPattern.FindStringSubmatch(string(b)); m != nil {
		c.mu.Lock()
		c.csrf = m[1] + m[2]
		c.mu.Unlock()
	}
	return Response{Status: res.StatusCode, Body: string(b), Header: res.Header, Location: res.Header.Get("Location")}
}

// Login signs in through the real sign-in form and fails the test if it does not work.
func (c *Client) Login(email, password string) {
	c.t.Helper()
	c.Get("/login")
	res := c.PostForm("/login", url.Values{"email": {email}, "password": {password}})
	if res.Status != http.StatusSeeOther {
		c.t.Fatalf("login as %s: status %d, want 303\n%s", email, res.Status, res.Body)
	}
	if res.Location != "/login/mfa" {
		return
	}
	c.Get("/login/mfa")
	res = c.PostForm("/login/mfa", url.Values{"code": {c.env.TOTP(c.t, email)()}})
	if res.Status != http.StatusSeeOther {
		c.t.Fatalf("login as %s, code step: status %d, want 303\n%s", email, res.Status, res.Body)
	}
}
