package kit

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// Faults are the misbehaviours the sandbox adds to API requests of every
// area, for tests and rehearsals. The zero value injects nothing.
type Faults struct {
	// Latency is added before every API answer.
	Latency time.Duration `json:"latency"`
	// LatencyJitter adds a further random delay between 0 and this value.
	LatencyJitter time.Duration `json:"latencyJitter"`
	// ErrorRate is the share (0 to 1) of requests answered at once with an
	// error (which status is the area's choice, see FaultError).
	ErrorRate float64 `json:"errorRate"`
	// DropRate is the share (0 to 1) of requests whose connection is closed
	// without an answer, before the sandbox acts.
	DropRate float64 `json:"dropRate"`
	// ActThenDropRate is the share (0 to 1) of requests that the sandbox
	// performs and then answers by closing the connection: the outcome is
	// unknown to the client, which must resolve it (area B reads the
	// transaction back). Areas that cannot act first treat it as a drop.
	ActThenDropRate float64 `json:"actThenDropRate"`
	// RetryAfter is the Retry-After of injected 429 and 503 answers.
	// Default 1 s.
	RetryAfter time.Duration `json:"retryAfter"`
}

// Validate checks the rates and durations.
func (f Faults) Validate() error {
	var errs []error
	for _, r := range []struct {
		name string
		v    float64
	}{{"error rate", f.ErrorRate}, {"drop rate", f.DropRate}, {"act-then-drop rate", f.ActThenDropRate}} {
		if r.v < 0 || r.v > 1 {
			errs = append(errs, errors.New(r.name+" must be between 0 and 1"))
		}
	}
	if f.ErrorRate+f.DropRate+f.ActThenDropRate > 1 {
		errs = append(errs, errors.New("the error, drop and act-then-drop rates must add up to at most 1"))
	}
	if f.Latency < 0 || f.LatencyJitter < 0 || f.RetryAfter < 0 {
		errs = append(errs, errors.New("latency, jitter and Retry-After cannot be negative"))
	}
	return errors.Join(errs...)
}

// FaultKind is what the dice chose for one request.
type FaultKind int

// The kinds of injected fault.
const (
	FaultNone        FaultKind = iota
	FaultError                 // answer at once with an error status
	FaultDrop                  // close the connection before acting
	FaultActThenDrop           // act, then close the connection without answering
)

// Decision is the fault plan of one request.
type Decision struct {
	Delay      time.Duration
	Kind       FaultKind
	Status     int // for FaultError: 0 lets the area choose
	RetryAfter time.Duration
}

// Wait sleeps for the injected latency, or until the client goes away; it
// reports whether the request should go on.
func (d Decision) Wait(r *http.Request) bool {
	if d.Delay <= 0 {
		return true
	}
	t := time.NewTimer(d.Delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// Drop closes the connection without an answer (net/http does not log it).
func Drop() { panic(http.ErrAbortHandler) }

// Discard is a response writer whose answer nobody will read: under
// FaultActThenDrop the request acts into it, then Drop closes the
// connection.
type Discard struct{}

// Header returns a fresh header map each time: nothing set in it is sent.
func (Discard) Header() http.Header { return http.Header{} }

// Write keeps nothing.
func (Discard) Write(b []byte) (int, error) { return len(b), nil }

// WriteHeader keeps nothing.
func (Discard) WriteHeader(int) {}

// Injector draws the faults of each request. Scripted faults (FailNext)
// come before the dice. It is safe for concurrent use.
type Injector struct {
	mu       sync.Mutex
	faults   Faults
	rng      *rand.Rand
	scripted []scripted
	requests map[string]int
}

type scripted struct {
	area string // empty: any area
	kind FaultKind
	code int
}

// NewInjector returns an injector with the faults f in force. seed makes the
// dice repeatable; 0 picks a random seed.
func NewInjector(f Faults, seed uint64) (*Injector, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if seed == 0 {
		var b [8]byte
		_, _ = crand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:])
	}
	return &Injector{faults: f, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), requests: map[string]int{}}, nil
}

// Set replaces the faults in force.
func (in *Injector) Set(f Faults) error {
	if err := f.Validate(); err != nil {
		return err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.faults = f
	return nil
}

// Get returns the faults in force.
func (in *Injector) Get() Faults {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.faults
}

// FailNext makes the next API requests of area (empty: of any area) fail,
// one status each, in order, before any random fault: 0 drops the
// connection, -1 acts and then drops, any other value is answered as that
// HTTP status.
func (in *Injector) FailNext(area string, codes ...int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, c := range codes {
		s := scripted{area: area, kind: FaultError, code: c}
		switch c {
		case 0:
			s.kind = FaultDrop
		case -1:
			s.kind = FaultActThenDrop
		}
		in.scripted = append(in.scripted, s)
	}
}

// Requests returns how many API requests of area have been decided on.
func (in *Injector) Requests(area string) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.requests[area]
}

// Decide draws the faults of one API request of area.
func (in *Injector) Decide(area string) Decision {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.requests[area]++
	f := in.faults
	d := Decision{Delay: f.Latency, RetryAfter: f.RetryAfter}
	if d.RetryAfter <= 0 {
		d.RetryAfter = time.Second
	}
	if f.LatencyJitter > 0 {
		d.Delay += time.Duration(in.rng.Int64N(int64(f.LatencyJitter) + 1))
	}
	for i, s := range in.scripted {
		if s.area == "" || s.area == area {
			in.scripted = append(in.scripted[:i:i], in.scripted[i+1:]...)
			d.Kind, d.Status = s.kind, s.code
			if s.kind != FaultError {
				d.Status = 0
			}
			return d
		}
	}
	roll := in.rng.Float64()
	switch {
	case roll < f.ErrorRate:
		d.Kind = FaultError
	case roll < f.ErrorRate+f.DropRate:
		d.Kind = FaultDrop
	case roll < f.ErrorRate+f.DropRate+f.ActThenDropRate:
		d.Kind = FaultActThenDrop
	}
	return d
}

// Pick returns one of choices at random, for an area choosing the status
// of an injected error.
func (in *Injector) Pick(choices []int) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return choices[in.rng.IntN(len(choices))]
}
