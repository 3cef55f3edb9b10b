package auth

import (
	"net/http"
	"time"

	"github.com/alexedwards/scs/pgxstore"
	"github.com/alexedwards/scs/v2"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

// Session keys.
const (
	sessionUserID  = "user_id"
	sessionVersion = "session_version"
)

// SessionCookieName is the name of the session cookie.
const SessionCookieName = "portal_session"

// NewSessionManager returns an scs manager keeping sessions in Postgres with an
// idle timeout and an absolute lifetime.
func NewSessionManager(pool *pgxpool.Pool, idle, lifetime time.Duration) *scs.SessionManager {
	sm := scs.New()
	// The cleanup goroutine is left to the store's default interval; stale
	// rows are harmless because every read checks expiry.
	sm.Store = pgxstore.NewWithCleanupInterval(pool, 10*time.Minute)
	sm.IdleTimeout = idle
	sm.Lifetime = lifetime
	sm.Cookie.Name = SessionCookieName
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Path = "/"
	return sm
}

// SessionMiddleware loads the session before the handler and saves it just
// before the response header is written. The cookie's Secure flag follows the
// request: set when it arrived over TLS, when a trusted proxy says it did, or
// when the portal's public address is https.
func SessionMiddleware(sm *scs.SessionManager, alwaysSecure, trustProxy bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			token := ""
			if ck, err := req.Cookie(sm.Cookie.Name); err == nil {
				token = ck.Value
			}
			ctx, err := sm.Load(req.Context(), token)
			if err != nil {
				return err
			}
			c.SetRequest(req.WithContext(ctx))
			view.MarkSessionLoaded(c)
			secure := alwaysSecure || req.TLS != nil || (trustProxy && req.Header.Get("X-Forwarded-Proto") == "https")
			c.Response().Before(func() { writeSessionCookie(c, sm, secure) })
			c.Response().Header().Add("Vary", "Cookie")
			return next(c)
		}
	}
}

func writeSessionCookie(c echo.Context, sm *scs.SessionManager, secure bool) {
	ctx := c.Request().Context()
	w := c.Response().Writer
	cookie := &http.Cookie{
		Name: sm.Cookie.Name, Path: sm.Cookie.Path, HttpOnly: true, Secure: secure, SameSite: sm.Cookie.SameSite,
	}
	switch sm.Status(ctx) {
	case scs.Modified:
		token, expiry, err := sm.Commit(ctx)
		if err != nil {
			c.Logger().Error(err)
			return
		}
		cookie.Value = token
		cookie.Expires = time.Unix(expiry.Unix()+1, 0)
		cookie.MaxAge = int(time.Until(expiry).Seconds() + 1)
	case scs.Destroyed:
		cookie.Expires = time.Unix(1, 0)
		cookie.MaxAge = -1
	default:
		return
	}
	http.SetCookie(w, cookie)
	w.Header().Add("Cache-Control", `no-cache="Set-Cookie"`)
}

// StartSession signs u in on this request's session, renewing the session token
// so a token planted before sign-in is worthless after it.
func StartSession(c echo.Context, sm *scs.SessionManager, u *models.User) error {
	ctx := c.Request().Context()
	if err := sm.RenewToken(ctx); err != nil {
		return err
	}
	sm.Put(ctx, sessionUserID, u.ID.String())
	sm.Put(ctx, sessionVersion, u.SessionVersion)
	return nil
}

// EndSession signs out by destroying the session.
func EndSession(c echo.Context, sm *scs.SessionManager) error {
	return sm.Destroy(c.Request().Context())
}

// sessionUser returns the user id and session version stored in the session.
func sessionUser(c echo.Context, sm *scs.SessionManager) (uuid.UUID, int, bool) {
	ctx := c.Request().Context()
	id, err := uuid.Parse(sm.GetString(ctx, sessionUserID))
	if err != nil {
		return uuid.Nil, 0, false
	}
	return id, sm.GetInt(ctx, sessionVersion), true
}
