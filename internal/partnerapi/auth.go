package partnerapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
)

// Authenticator is what the API needs of the keys: *apikeys.Service.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (*apikeys.Principal, error)
}

type principalKey struct{}

// principalOf is the key a request authenticated with (RequireKey ran before).
func principalOf(c echo.Context) *apikeys.Principal {
	p, _ := c.Request().Context().Value(principalKey{}).(*apikeys.Principal)
	return p
}

// RequireKey authenticates every request of the API by its bearer key (401 otherwise),
// counts it against the key's rate limit (429 with Retry-After past it), and marks the
// request's context with the key, so every audit entry written for it names the key.
// Cookies are never read here: a browser's session does not reach the API.
func RequireKey(keys Authenticator, guard *Guard) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			token, found := bearer(c.Request())
			if !found {
				return problem(http.StatusUnauthorized, CodeUnauthenticated, "Send the API key as “Authorization: Bearer ppk_…”.")
			}
			ctx := c.Request().Context()
			p, err := keys.Authenticate(ctx, token)
			if errors.Is(err, apikeys.ErrUnauthenticated) {
				return problem(http.StatusUnauthorized, CodeUnauthenticated, "This API key is not valid: it is unknown, revoked, or its sales rep's account is deactivated.")
			}
			if err != nil {
				return err
			}
			if err := guard.checkRate(c, p); err != nil {
				return err
			}
			ctx = context.WithValue(audit.WithAPIKey(ctx, p.KeyID), principalKey{}, p)
			c.SetRequest(c.Request().WithContext(ctx))
			return next(c)
		}
	}
}

// bearer reads the key of an Authorization header.
func bearer(r *http.Request) (string, bool) {
	scheme, token, found := strings.Cut(r.Header.Get(echo.HeaderAuthorization), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// checkRate answers 429 once a key has made its requests of the minute.
func (g *Guard) checkRate(c echo.Context, p *apikeys.Principal) error {
	n, retry, err := g.count(c.Request().Context(), p.KeyID)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("RateLimit-Limit", itoa(g.perMinute))
	h.Set("RateLimit-Remaining", itoa(max(g.perMinute-n, 0)))
	h.Set("RateLimit-Reset", itoa(retry))
	if n > g.perMinute {
		pr := problem(http.StatusTooManyRequests, CodeRateLimited,
			"This key made more than "+itoa(g.perMinute)+" requests this minute; wait for the time Retry-After gives.")
		pr.retryAfter = retry
		return pr
	}
	return nil
}

// RequireWrite refuses a read-only key (403) on a route that changes something.
func RequireWrite(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !principalOf(c).CanWrite() {
			return problem(http.StatusForbidden, CodeForbidden, "This API key is read-only.")
		}
		return next(c)
	}
}

// viewer is who the rooms' read use cases see for p: its rep, or for a reseller-wide
// key a user with the admins' view and no identity (uuid.Nil), who is never passed to
// a use case that writes; writes act as the application's owning rep (actorFor).
func viewer(p *apikeys.Principal) *models.User {
	if p.Rep != nil {
		return p.Rep
	}
	return &models.User{Role: models.RoleAdmin, Name: "API key " + p.Name, Active: true}
}
