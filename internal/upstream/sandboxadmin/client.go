// Package sandboxadmin is the typed client of the sandbox's admin API: the
// operator's side of a rehearsal, which a real processor does not offer.
// The portal uses it only in sandbox mode (the embedded sandbox of
// `make run`, or a sandbox named by PORTAL_SANDBOX_ADMIN_URL), never in
// production: to issue the pricing codes of its pricing models, as the
// operator does at enrollment, and to fetch a boarded merchant's payment
// and terminal credentials, as the operator's integration specialists hand
// them over. It imports nothing of the portal.
package sandboxadmin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/payportal/portal/internal/upstream/transport"
)

// Config configures a Client.
type Config struct {
	// BaseURL is the sandbox's address (scheme://host:port), without a path.
	BaseURL string
	// Token is the sandbox's admin token, sent as a bearer token.
	Token string
	// Timeout bounds each call. Default 15 s.
	Timeout time.Duration
	// HTTPClient sends the requests. Default: a client of its own.
	HTTPClient *http.Client
	// Logger receives one line per call (method, path, status, duration),
	// never a token or a body. Default: discard.
	Logger *slog.Logger
}

// Client calls the sandbox's admin API. It is safe for concurrent use.
type Client struct {
	token string
	t     *transport.Client
}

// New checks cfg and returns a Client; it makes no request.
func New(cfg Config) (*Client, error) {
	t, err := transport.New(transport.Config{Name: "sandboxadmin", BaseURL: cfg.BaseURL, Timeout: max(cfg.Timeout, 0),
		HTTPClient: cfg.HTTPClient, Logger: cfg.Logger},
		// One attempt: what calls it (start-up, boarding) repeats on its own schedule.
		transport.Defaults{Timeout: 15 * time.Second, MaxAttempts: 1, UserAgent: "payportal-sandboxadmin/1"})
	if err != nil {
		return nil, err
	}
	if cfg.Token == "" {
		return nil, errors.New("sandboxadmin: the admin token is required")
	}
	return &Client{token: cfg.Token, t: t}, nil
}

// BaseURL is the sandbox's address.
func (c *Client) BaseURL() string { return c.t.BaseURL() }

// Errors told apart with errors.Is.
var (
	// ErrNotFound: the sandbox knows no such application.
	ErrNotFound = errors.New("sandboxadmin: not found")
	// ErrNotBoarded: the application is not boarded (yet); the sandbox
	// issues credentials at boarding.
	ErrNotBoarded = errors.New("sandboxadmin: application not boarded")
	// ErrUnauthorized: the admin token was refused.
	ErrUnauthorized = errors.New("sandboxadmin: admin token refused")
)

// Error is a call the sandbox refused (StatusCode, Message) or that got no
// answer (StatusCode 0, Err).
type Error struct {
	Method, Path string
	StatusCode   int
	Message      string
	Err          error
}

// Error describes the failure without the token or a body.
func (e *Error) Error() string {
	if e.StatusCode == 0 {
		return fmt.Sprintf("sandbox admin %s %s: %v", e.Method, e.Path, e.Err)
	}
	return fmt.Sprintf("sandbox admin %s %s: %d %s: %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode), e.Message)
}

// Unwrap returns the transport error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is maps answers to the sentinel errors.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrNotBoarded:
		return e.StatusCode == http.StatusConflict
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden
	}
	return false
}

// IsTemporary reports whether err may go away when the call is made again
// later: no answer, 409 (not boarded yet), 429 or 5xx.
func IsTemporary(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch {
	case e.StatusCode == 0:
		return !errors.Is(e.Err, context.Canceled)
	case e.StatusCode == http.StatusConflict, e.StatusCode == http.StatusTooManyRequests, e.StatusCode >= 500:
		return true
	}
	return false
}

// IssuePricingCode issues a pricing code, as the operator does at
// enrollment (POST /_sandbox/admin/api/accounts/pricing-codes). Issuing a
// code issued already is not an error.
func (c *Client) IssuePricingCode(ctx context.Context, code, description string) error {
	body, err := json.Marshal(map[string]string{"code": code, "description": description})
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPost, "/_sandbox/admin/api/accounts/pricing-codes", body, nil)
}

// PaymentCredentials are a merchant's direct payment API account id and
// bearer token.
type PaymentCredentials struct {
	OID   string `json:"oid"`
	Token string `json:"token"`
}

// Location is one terminal cloud location of a merchant.
type Location struct {
	LocationID string `json:"locationId"`
	Name       string `json:"name"`
}

// TerminalCredentials are a merchant's terminal cloud API key and its
// locations.
type TerminalCredentials struct {
	APIKey    string     `json:"apiKey"`
	Locations []Location `json:"locations"`
}

// Credentials are what boarding gave a merchant; an area the sandbox does
// not serve (or has not provisioned yet) is nil.
type Credentials struct {
	Payments  *PaymentCredentials  `json:"payments"`
	Terminals *TerminalCredentials `json:"terminals"`
}

// String never shows a secret.
func (c Credentials) String() string { return "sandbox credentials (secrets hidden)" }

// Credentials returns the credentials of the boarded application
// applicationID (the sandbox's own application id):
// GET /_sandbox/admin/api/merchants/{applicationId}/credentials. Before
// boarding the answer is ErrNotBoarded.
func (c *Client) Credentials(ctx context.Context, applicationID string) (*Credentials, error) {
	var out Credentials
	path := "/_sandbox/admin/api/merchants/" + url.PathEscape(applicationID) + "/credentials"
	if err := c.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// do sends one request and decodes a 2xx answer into out (if not nil).
func (c *Client) do(ctx context.Context, method, path string, body []byte, out any) error {
	a, err := c.t.Send(ctx, transport.Request{Method: method, Path: path, Payload: body,
		Header: http.Header{"Authorization": {"Bearer " + c.token}}}, 1)
	switch {
	case err != nil:
		return &Error{Method: method, Path: path, Err: err}
	case a.Status == 0 || (a.OK() && a.Err != nil):
		return &Error{Method: method, Path: path, Err: a.Err}
	case !a.OK():
		return &Error{Method: method, Path: path, StatusCode: a.Status, Message: a.Refusal().Message}
	case out != nil:
		if err := json.Unmarshal(a.Body, out); err != nil {
			return &Error{Method: method, Path: path, StatusCode: a.Status, Message: "answer is not the expected JSON: " + err.Error()}
		}
	}
	return nil
}
