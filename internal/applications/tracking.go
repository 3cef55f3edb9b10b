package applications

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

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
	pool *pgxpool.Pool
	now  func() time.Time
	log  *slog.Logger
}

// NewOpenTracker returns a tracker on pool.
func NewOpenTracker(pool *pgxpool.Pool, now func() time.Time, log *slog.Logger) *OpenTracker {
	return &OpenTracker{pool: pool, now: now, log: log}
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
		first bool
	)
	err := pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `WITH prev AS (
				SELECT id, opened_at FROM applications
				WHERE open_token = $1 AND deleted_at IS NULL AND handoff_link IS NOT NULL
				FOR UPDATE)
			UPDATE applications a SET opened_at = coalesce(a.opened_at, $2)
			FROM prev WHERE a.id = prev.id
			RETURNING a.id, a.handoff_link, prev.opened_at IS NULL`, token, now).Scan(&appID, &link, &first)
		if errors.Is(err, pgx.ErrNoRows) {
			return models.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("record open: %w", err)
		}
		details := fmt.Sprintf(`{"first": %t}`, first)
		if _, err := tx.Exec(ctx, `INSERT INTO application_events (application_id, action, details, created_at)
			VALUES ($1, 'opened', $2, $3)`, appID, details, now); err != nil {
			return fmt.Errorf("audit open: %w", err)
		}
		return nil
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
