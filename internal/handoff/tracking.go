package handoff

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
)

// openTokenBytes is the entropy of an open-tracking token: 256 bits, so the
// tokens cannot be guessed or enumerated.
const openTokenBytes = 32

// openTokenLength is the length of the token's unpadded base64url text.
var openTokenLength = base64.RawURLEncoding.EncodedLen(openTokenBytes)

// NewOpenToken returns a fresh token for applications.open_token: 32 random
// bytes as unpadded base64url text (43 characters), safe in a URL path.
func NewOpenToken() (string, error) {
	b := make([]byte, openTokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("open token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// TrackingURL is the portal address e-mailed to the merchant: opening it
// records the open and forwards to the hand-off link.
func TrackingURL(publicURL *url.URL, token string) string {
	return strings.TrimRight(publicURL.String(), "/") + "/l/" + token
}

// OpenTracker records the merchant opening the hand-off link.
type OpenTracker struct {
	apps *applications.Store
	now  func() time.Time
	log  *slog.Logger
}

// NewOpenTracker returns a tracker that records opens through apps.
func NewOpenTracker(apps *applications.Store, now func() time.Time, log *slog.Logger) *OpenTracker {
	return &OpenTracker{apps: apps, now: now, log: log}
}

// Open records one open of the link behind token: the first sets opened_at,
// every one adds an "opened" audit entry. It returns the hand-off link, or
// models.ErrNotFound for a token no linked, live application carries.
func (t *OpenTracker) Open(ctx context.Context, token string) (string, error) {
	if !wellFormedToken(token) {
		return "", models.ErrNotFound
	}
	now := t.now().UTC()
	var (
		appID uuid.UUID
		link  string
	)
	err := t.apps.InTx(ctx, func(tx pgx.Tx) error {
		id, l, first, err := t.apps.RecordOpen(ctx, tx, token, now)
		if err != nil {
			return err
		}
		appID, link = id, l
		return audit.Record(ctx, tx, audit.Event{Subject: audit.Application(id), Action: audit.ActionOpened,
			Details: map[string]any{"first": first}, At: now})
	})
	if err != nil {
		return "", err
	}
	if !safeRedirect(link) {
		// The link comes from the upstream; never forward to anything but a web page.
		return "", fmt.Errorf("application %s: hand-off link is not an http(s) URL", appID)
	}
	return link, nil
}

// Follow serves GET /l/:token: it records the open and sends the browser on
// to the hand-off link. No sign-in; the token is the credential. The request
// log names only the route, never the token.
func (t *OpenTracker) Follow(c echo.Context) error {
	link, err := t.Open(c.Request().Context(), c.Param("token"))
	if err != nil {
		return err
	}
	h := c.Response().Header()
	// The token must not travel on to the upstream's page in a Referer header,
	// and no cache may answer the next open in place of the portal.
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Robots-Tag", "noindex")
	return c.Redirect(http.StatusSeeOther, link)
}

func wellFormedToken(token string) bool {
	if len(token) != openTokenLength {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil
}

func safeRedirect(link string) bool {
	u, err := url.Parse(link)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}
