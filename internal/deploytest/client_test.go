package deploytest_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// client is a browser-like client of the portal: it keeps cookies, sends back
// the CSRF token of the last page it saw, and connects from a loopback address
// of its own, so that the balancer forwards each client as a distinct address.
// It never fails the test itself: background clients report through response.
type client struct {
	base string
	http *http.Client
	mu   sync.Mutex
	csrf string
}

// response is what one request got; Err is set when no answer came.
type response struct {
	Status   int
	Body     string
	Header   http.Header
	Location string
	// Server is the instance that answered, as the balancer names it.
	Server string
	Err    error
}

var csrfPattern = regexp.MustCompile(`name="csrf_token" value="([^"]+)"|"X-CSRF-Token": "([^"]+)"`)

// newClient returns a client of base connecting from the address from (such as
// 127.0.0.2); "" lets the system choose.
func newClient(base, from string) *client {
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		dialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	tr := &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: 16, IdleConnTimeout: 30 * time.Second}
	jar, _ := cookiejar.New(nil)
	return &client{base: base, http: &http.Client{Jar: jar, Transport: tr, Timeout: 2 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *client) do(method, path string, body io.Reader, header http.Header) response {
	req, err := http.NewRequestWithContext(context.Background(), method, c.base+path, body)
	if err != nil {
		return response{Err: err}
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	res, err := c.http.Do(req)
	if err != nil {
		return response{Err: err}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if m := csrfPattern.FindSubmatch(b); m != nil {
		c.mu.Lock()
		c.csrf = string(m[1]) + string(m[2])
		c.mu.Unlock()
	}
	return response{Status: res.StatusCode, Body: string(b), Header: res.Header, Location: res.Header.Get("Location"),
		Server: res.Header.Get("X-Served-By"), Err: err}
}

func (c *client) get(path string) response { return c.do(http.MethodGet, path, nil, nil) }

// postForm posts values with the CSRF token of the last page.
func (c *client) postForm(path string, values url.Values) response {
	if values == nil {
		values = url.Values{}
	}
	c.mu.Lock()
	values.Set("csrf_token", c.csrf)
	c.mu.Unlock()
	return c.do(http.MethodPost, path, strings.NewReader(values.Encode()),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
}

// postFormWith posts values with the CSRF token and extra headers.
func (c *client) postFormWith(path string, values url.Values, header http.Header) response {
	c.mu.Lock()
	values.Set("csrf_token", c.csrf)
	c.mu.Unlock()
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	for k, v := range header {
		h[k] = v
	}
	return c.do(http.MethodPost, path, strings.NewReader(values.Encode()), h)
}

// token is the CSRF token of the last page seen.
func (c *client) token() string { c.mu.Lock(); defer c.mu.Unlock(); return c.csrf }

// signIn signs in with a password (no second step) or fails the test.
func (c *client) signIn(t testing.TB, email, password string) {
	t.Helper()
	c.get("/login")
	if res := c.postForm("/login", url.Values{"email": {email}, "password": {password}}); res.Status != http.StatusSeeOther || res.Location != "/" {
		t.Fatalf("sign in as %s: %d %q %v\n%s", email, res.Status, res.Location, res.Err, res.Body)
	}
}
