package payments

import (
	"errors"
	"net/http"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// injectedStatuses are the statuses of injected API errors.
var injectedStatuses = []int{http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
	http.StatusServiceUnavailable, http.StatusGatewayTimeout}

// serveAPI is every API request: faults, method, credentials, rate limit
// and headers, then the operation or the read-back. It writes one log line
// per request: method, path, status, duration; never a body or a header.
func (a *Area) serveAPI(ach bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { a.serve(w, r, ach) }
}

func (a *Area) serve(w http.ResponseWriter, r *http.Request, ach bool) {
	start := time.Now()
	rec := &kit.StatusRecorder{ResponseWriter: w, Status: http.StatusOK}
	outcome := "answered"
	defer func() {
		a.env.Log.Info("sandbox request", "area", faultArea, "method", r.Method, "path", r.URL.Path,
			"status", rec.Status, "outcome", outcome, "duration", time.Since(start))
	}()
	d := a.env.Faults.Decide(faultArea)
	if !d.Wait(r) {
		outcome = "client gone"
		return
	}
	switch d.Kind {
	case kit.FaultDrop:
		outcome = "dropped (injected)"
		kit.Drop()
	case kit.FaultError:
		status := d.Status
		if status == 0 {
			status = a.env.Faults.Pick(injectedStatuses)
		}
		e := kit.NewError(status, "%s (injected fault)", http.StatusText(status))
		if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
			e.RetryAfter = d.RetryAfter
		}
		writeError(rec, e)
		return
	}
	dropAfter := func() {
		if d.Kind == kit.FaultActThenDrop {
			outcome = "acted, then dropped (injected)"
			kit.Drop()
		}
	}
	name := r.PathValue("name")
	if ach {
		name = "ach/" + name
	}
	op, isOp := operations[name]
	want := http.MethodGet
	if isOp {
		want = http.MethodPut
	}
	if r.Method != want {
		writeError(rec, &kit.APIError{Status: http.StatusMethodNotAllowed, Allow: want,
			Message: "method " + r.Method + " is not allowed here; use " + want})
		return
	}
	oid, err := a.authenticate(r)
	if err == nil {
		err = a.checkHeaders(r, isOp)
	}
	if err != nil {
		writeError(rec, err)
		return
	}
	if !isOp {
		status, body := a.readBack(oid, name)
		dropAfter()
		kit.WriteStoredJSON(rec, status, body)
		return
	}
	status, body := a.write(rec, r, oid, op)
	dropAfter()
	kit.WriteStoredJSON(rec, status, body)
}

// authenticate checks the bearer token against the {oid} of the path, and
// the account's rate limit.
func (a *Area) authenticate(r *http.Request) (string, error) {
	oid := r.PathValue("oid")
	tok := kit.BearerToken(r)
	if tok == "" {
		return "", kit.NewError(http.StatusUnauthorized, "Authorization: Bearer <token> is required")
	}
	tokenOID, err := a.verify(tok)
	if err != nil {
		return "", kit.NewError(http.StatusUnauthorized, "the token is not valid")
	}
	if tokenOID != oid {
		return "", kit.NewError(http.StatusForbidden, "the token is not valid for this account")
	}
	if _, err := a.account(oid); err != nil {
		if errors.Is(err, kit.ErrNotFound) {
			return "", kit.NewError(http.StatusForbidden, "the account is closed")
		}
		return "", err
	}
	if wait := a.limiter.take(oid); wait > 0 {
		return "", &kit.APIError{Status: http.StatusTooManyRequests, RetryAfter: wait,
			Message: "rate limit exceeded for this account; retry after the time in Retry-After"}
	}
	return oid, nil
}

// checkHeaders checks the optional appVersion and idempotency-key headers.
func (a *Area) checkHeaders(r *http.Request, write bool) error {
	if v, sent := r.Header["Appversion"]; sent && (len(v) != 1 || !appVersionRule.MatchString(v[0])) {
		return kit.FieldError("appVersion", "must match ^[a-zA-Z\\d\\- _.]{1,50}$")
	}
	if v, sent := r.Header["Idempotency-Key"]; sent && write && (len(v) != 1 || !uuidV4Pattern.MatchString(v[0])) {
		return kit.FieldError("idempotency-key", "must be a v4 UUID")
	}
	return nil
}
