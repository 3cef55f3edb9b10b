package accounts

import (
	"net/http"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// objectStoreArea names the object store's requests in the fault injector,
// so scripted API failures (FailNext) do not hit uploads.
const objectStoreArea = Area + ".objects"

// apiErrorStatuses are the statuses of injected API errors.
var apiErrorStatuses = []int{http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}

// apiFault applies the faults to an API request. It reports whether it has
// answered (or dropped) the request; for "act, then drop" it returns a
// writer that swallows the answer and a function to call once the handler
// has acted, which closes the connection.
func (s *Server) apiFault(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, func(), bool) {
	d := s.env.Faults.Decide(Area)
	if !d.Wait(r) {
		return w, nil, true
	}
	switch d.Kind {
	case kit.FaultDrop:
		kit.Drop()
	case kit.FaultActThenDrop:
		return kit.Discard{}, kit.Drop, false
	case kit.FaultError:
		status := d.Status
		if status == 0 {
			status = s.env.Faults.Pick(apiErrorStatuses)
		}
		e := kit.NewError(status, "%s (injected fault)", http.StatusText(status))
		if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
			e.RetryAfter = max(d.RetryAfter.Round(time.Second), time.Second)
		}
		writeAPIError(w, e)
		return w, nil, true
	}
	return w, nil, false
}

// storeFaults applies the faults to object-store requests, answering
// errors in S3's shape.
func (s *Server) storeFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := s.env.Faults.Decide(objectStoreArea)
		if !d.Wait(r) {
			return
		}
		switch d.Kind {
		case kit.FaultDrop:
			kit.Drop()
		case kit.FaultActThenDrop:
			next.ServeHTTP(kit.Discard{}, r)
			kit.Drop()
		case kit.FaultError:
			status := d.Status
			if status == 0 {
				status = s.env.Faults.Pick([]int{http.StatusServiceUnavailable, http.StatusInternalServerError})
			}
			if status == http.StatusServiceUnavailable {
				writeS3Error(w, status, "SlowDown", "Please reduce your request rate. (injected fault)", nil)
			} else {
				writeS3Error(w, status, "InternalError", "We encountered an internal error. Please try again. (injected fault)", nil)
			}
			return
		}
		next.ServeHTTP(w, r)
	})
}

// SetFaults replaces the injected faults: the shared ones, for every area
// of the sandbox, and area A's presigned URL lifetime.
func (s *Server) SetFaults(f Faults) error {
	if f.URLLifetime < 0 {
		return errNegativeLifetime
	}
	if err := s.env.Faults.Set(f.Shared()); err != nil {
		return err
	}
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	s.urlLifetime = f.URLLifetime
	return nil
}

// Faults returns the injected faults in force.
func (s *Server) Faults() Faults {
	k := s.env.Faults.Get()
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	return Faults{Latency: k.Latency, LatencyJitter: k.LatencyJitter, ErrorRate: k.ErrorRate,
		DropRate: k.DropRate, RetryAfter: k.RetryAfter, URLLifetime: s.urlLifetime}
}

// SetCompat switches between the documented shapes of answers.
func (s *Server) SetCompat(c Compat) {
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	s.compat = c
}

// Compat returns the answer shapes in force.
func (s *Server) Compat() Compat {
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	return s.compat
}

// FailNext makes the next API requests of this area fail, one status each,
// in order, before any random fault: 429, 502, 503, 504 or any other
// status; 0 drops the connection; -1 acts, then drops the connection. It
// lets tests script exact failures.
func (s *Server) FailNext(codes ...int) { s.env.Faults.FailNext(Area, codes...) }

// APIRequests returns how many API requests (including /auth) have arrived.
func (s *Server) APIRequests() int { return s.env.Faults.Requests(Area) }
