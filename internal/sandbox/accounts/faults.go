package accounts

import (
	"net/http"
	"strconv"
	"time"
)

// faultKind is what the dice chose for one request.
type faultKind int

const (
	faultNone faultKind = iota
	faultError
	faultDrop
)

// decision is the fault plan of one request.
type decision struct {
	delay      time.Duration
	kind       faultKind
	status     int
	retryAfter time.Duration
}

// apiErrorStatuses are the statuses of injected API errors.
var apiErrorStatuses = []int{http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}

// decide draws the faults of one request. Scripted failures (FailNext) come
// first and apply to the API only.
func (s *Server) decide(api bool) decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults
	d := decision{delay: f.Latency, retryAfter: f.RetryAfter}
	if d.retryAfter <= 0 {
		d.retryAfter = time.Second
	}
	if f.LatencyJitter > 0 {
		d.delay += time.Duration(s.rng.Int64N(int64(f.LatencyJitter) + 1))
	}
	if api {
		s.apiRequests++
		if len(s.scripted) > 0 {
			st := s.scripted[0]
			s.scripted = s.scripted[1:]
			if st == 0 {
				d.kind = faultDrop
			} else {
				d.kind, d.status = faultError, st
			}
			return d
		}
	}
	roll := s.rng.Float64()
	switch {
	case roll < f.ErrorRate:
		d.kind = faultError
		if api {
			d.status = apiErrorStatuses[s.rng.IntN(len(apiErrorStatuses))]
		} else if s.rng.IntN(2) == 0 {
			d.status = http.StatusServiceUnavailable
		} else {
			d.status = http.StatusInternalServerError
		}
	case roll < f.ErrorRate+f.DropRate:
		d.kind = faultDrop
	}
	return d
}

// wait sleeps for the injected latency, or until the client goes away.
func (d decision) wait(r *http.Request) bool {
	if d.delay <= 0 {
		return true
	}
	t := time.NewTimer(d.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// apiFault applies the faults to an API request and reports whether it has
// answered (or dropped) the request. A fault strikes before the sandbox acts,
// so a failed request changes nothing.
func (s *Server) apiFault(w http.ResponseWriter, r *http.Request) bool {
	d := s.decide(true)
	if !d.wait(r) {
		return true
	}
	switch d.kind {
	case faultDrop:
		// Closes the connection without an answer; net/http does not log it.
		panic(http.ErrAbortHandler)
	case faultError:
		e := newError(d.status, "%s (injected fault)", http.StatusText(d.status))
		if d.status == http.StatusTooManyRequests || d.status == http.StatusServiceUnavailable {
			e.RetryAfter = strconv.Itoa(int(max(d.retryAfter.Round(time.Second), time.Second).Seconds()))
		}
		writeAPIError(w, e)
		return true
	}
	return false
}

// storeFaults applies the faults to object-store requests, answering
// errors in S3's shape.
func (s *Server) storeFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := s.decide(false)
		if !d.wait(r) {
			return
		}
		switch d.kind {
		case faultDrop:
			panic(http.ErrAbortHandler)
		case faultError:
			if d.status == http.StatusServiceUnavailable {
				writeS3Error(w, d.status, "SlowDown", "Please reduce your request rate. (injected fault)", nil)
			} else {
				writeS3Error(w, d.status, "InternalError", "We encountered an internal error. Please try again. (injected fault)", nil)
			}
			return
		}
		next.ServeHTTP(w, r)
	})
}

// SetFaults replaces the injected faults.
func (s *Server) SetFaults(f Faults) error {
	if err := f.validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f
	return nil
}

// Faults returns the injected faults in force.
func (s *Server) Faults() Faults {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults
}

// SetCompat switches between the documented shapes of answers.
func (s *Server) SetCompat(c Compat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compat = c
}

// FailNext makes the next API requests fail, one status each, in order,
// before any random fault: 429, 502, 503, 504 or any other status; 0 drops
// the connection. It lets tests script exact failures.
func (s *Server) FailNext(codes ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripted = append(s.scripted, codes...)
}

// APIRequests returns how many API requests (including /auth) have arrived.
func (s *Server) APIRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.apiRequests
}
