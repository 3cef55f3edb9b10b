package payments

import (
	"cmp"
	"errors"
	"strings"
	"time"
)

// Defaults of Options.
const (
	DefaultBasePath       = "/virtualterminal/v1"
	DefaultCutOff         = 22 * time.Hour // 22:00 in CutOffZone
	DefaultAuthLapse      = 7 * 24 * time.Hour
	DefaultIdempotencyTTL = 24 * time.Hour
	DefaultRateLimit      = 50
	DefaultRateWindow     = 10 * time.Second
	DefaultTimeoutDelay   = 3 * time.Second
	DefaultACHReturnDelay = 24 * time.Hour
	// VoidWindow is the published direct-gateway rule: a void later than
	// this after the transaction, still unsettled, becomes a refund.
	VoidWindow = 25 * time.Minute
)

// Options configures the direct payment area. The zero value works.
type Options struct {
	// BasePath is where the API lives. Default /virtualterminal/v1.
	BasePath string
	// SigningKey signs the accounts' JWTs (HS256). Empty: a random key,
	// kept in the store so tokens survive a restart with a state file.
	SigningKey []byte
	// CutOff is the daily batch cut-off as the time since midnight in
	// CutOffZone. Default 22:00.
	CutOff time.Duration
	// CutOffZone is the zone of CutOff. Default UTC.
	CutOffZone *time.Location
	// AuthLapse is how long an authorization can be captured (card
	// networks: about 7 to 30 days). Default 7 days.
	AuthLapse time.Duration
	// IdempotencyTTL is how long an idempotency key's first answer is
	// kept, on the sandbox clock. Default 24 h.
	IdempotencyTTL time.Duration
	// RateLimit and RateWindow: each account may send RateLimit API
	// requests per RateWindow (a token bucket on the wall clock); beyond,
	// 429 with Retry-After. Defaults 50 per 10 s. A negative RateLimit
	// turns the limit off.
	RateLimit  int
	RateWindow time.Duration
	// TimeoutDelay is how long the processor-timeout test card and amount
	// wait (wall clock) before answering 504. Default 3 s.
	TimeoutDelay time.Duration
	// ACHReturnDelay is how long after settlement the return of an ACH
	// sale to a returning test account arrives. Default 24 h.
	ACHReturnDelay time.Duration
	// WallClock tells the wall-clock time for the rate limiter. Default
	// time.Now; tests replace it.
	WallClock func() time.Time
}

// withDefaults fills the zero values and checks the rest.
func (o Options) withDefaults() (Options, error) {
	if o.CutOff < 0 || o.CutOff >= 24*time.Hour {
		return o, errors.New("payments sandbox: the cut-off must be a time of day between 00:00 and 23:59")
	}
	if o.AuthLapse < 0 || o.IdempotencyTTL < 0 || o.RateWindow < 0 || o.TimeoutDelay < 0 || o.ACHReturnDelay < 0 {
		return o, errors.New("payments sandbox: durations must not be negative")
	}
	o.BasePath = "/" + strings.Trim(cmp.Or(o.BasePath, DefaultBasePath), "/")
	o.CutOff = cmp.Or(o.CutOff, DefaultCutOff)
	o.AuthLapse = cmp.Or(o.AuthLapse, DefaultAuthLapse)
	o.IdempotencyTTL = cmp.Or(o.IdempotencyTTL, DefaultIdempotencyTTL)
	o.RateLimit = cmp.Or(o.RateLimit, DefaultRateLimit)
	o.RateWindow = cmp.Or(o.RateWindow, DefaultRateWindow)
	o.TimeoutDelay = cmp.Or(o.TimeoutDelay, DefaultTimeoutDelay)
	o.ACHReturnDelay = cmp.Or(o.ACHReturnDelay, DefaultACHReturnDelay)
	if o.CutOffZone == nil {
		o.CutOffZone = time.UTC
	}
	if o.WallClock == nil {
		o.WallClock = time.Now
	}
	return o, nil
}
