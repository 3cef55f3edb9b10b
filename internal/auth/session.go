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
	// sessionIdle is this session's idle limit in seconds, fixed at sign-in
	// (shorter for people who must use MFA); sessionSeen is the Unix time
	// of its last request, written at most once a minute.
	sessionIdle = "idle_seconds"
	sessionSeen = "seen_at"
	// A password checked, the second factor still to come.
	sessionMFAUserID  = "mfa_user_id"
	sessionMFAVersion = "mfa_session_version"
	sessionMFAStarted = "mfa_started_at"
	sessionMFANext    = "mfa_next"
)

// StrictIdleTimeout is the idle limit of everyone who must use MFA (admins,
// people who take or reverse payments): PCI DSS 8.2.8 asks for 15 minutes.
const StrictIdleTimeout = 15 * time.Minute

// seenGranularity is how stale the last-request time may get before it is
// written again: idle limits are enforced to the minute without a session
// write on every request.
const seenGranularity = time.Minute

// SessionCookieName is the name of the session cookie.
const SessionCookieName = "portal_session"

// NewSessionManager returns an scs manager keeping sessions in Postgres with
// an absolute lifetime. Idle limits are the portal's own (LoadUser), per
// user, so that a read-only request writes nothing.
func NewSessionManager(pool *pgxpool.Pool, lifetime time.Duration) *scs.SessionManager {
	sm := scs.New()
	// The cleanup goroutine is left to the store's default interval; stale
	// rows are harmless because every read checks expiry.
	sm.Store = hashedStore{inner: pgxstore.NewWithCleanupInterval(pool, 10*time.Minute)}
	sm.Lifetime = lifetime
	sm.Cookie.Name = SessionCookieName
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Path = "/"
	return sm
}

// SessionMiddleware loads the session before the handler and saves it just
// before the response header is written. The cookie's Secure flag follows the
// request: set when it arrived over TLS, when a trusted proxy (fromProxy) says
// it did, or when the portal's public address is https.
func SessionMiddleware(sm *scs.SessionManager, alwaysSecure bool, fromProxy func(*http.Request) bool) echo.MiddlewareFunc {
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
			secure := alwaysSecure || req.TLS != nil || (req.Header.Get("X-Forwarded-Proto") == "https" && fromProxy(req))
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
// so a token planted before sign-in is worthless after it. idle is the
// session's idle limit; now starts its clock.
func StartSession(c echo.Context, sm *scs.SessionManager, u *models.User, idle time.Duration, now time.Time) error {
	ctx := c.Request().Context()
	if err := sm.RenewToken(ctx); err != nil {
		return err
	}
	for _, k := range []string{sessionMFAUserID, sessionMFAVersion, sessionMFAStarted, sessionMFANext} {
		sm.Remove(ctx, k)
	}
	sm.Put(ctx, sessionUserID, u.ID.String())
	sm.Put(ctx, sessionVersion, u.SessionVersion)
	sm.Put(ctx, sessionIdle, int(idle/time.Second))
	sm.Put(ctx, sessionSeen, now.Unix())
	return nil
}

// hashedStore keeps sessions under the SHA-256 of their token, so the
// sessions table (or a dump of it) holds no token that signs anyone in.
type hashedStore struct{ inner scs.Store }

func (h hashedStore) Find(token string) ([]byte, bool, error) { return h.inner.Find(hashToken(token)) }
func (h hashedStore) Delete(token string) error               { return h.inner.Delete(hashToken(token)) }
func (h hashedStore) Commit(token string, b []byte, expiry time.Time) error {
	return h.inner.Commit(hashToken(token), b, expiry)
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
