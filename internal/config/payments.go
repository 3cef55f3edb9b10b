package config

import "time"

// PaymentsConfig tunes the virtual terminal (internal/payments).
type PaymentsConfig struct {
	// DuplicateWindow: a payment with the same card's last four and total as
	// one made this recently asks for an explicit "charge again"
	// (PORTAL_PAYMENTS_DUPLICATE_WINDOW, 10m).
	DuplicateWindow time.Duration
	// CheckGrace: an unknown outcome becomes "not charged" only when every
	// read-back until this long after the request found nothing
	// (PORTAL_PAYMENTS_CHECK_GRACE, 10m).
	CheckGrace time.Duration
	// CheckEvery is the wait between read-backs of an unknown outcome
	// (PORTAL_PAYMENTS_CHECK_EVERY, 30s).
	CheckEvery time.Duration
	// CallTimeout bounds one upstream write with its retries; past it the
	// outcome is unknown and checked in the background
	// (PORTAL_PAYMENTS_CALL_TIMEOUT, 45s).
	CallTimeout time.Duration
}

func readPayments(r *reader) PaymentsConfig {
	c := PaymentsConfig{
		DuplicateWindow: r.duration("PORTAL_PAYMENTS_DUPLICATE_WINDOW", 10*time.Minute),
		CheckGrace:      r.duration("PORTAL_PAYMENTS_CHECK_GRACE", 10*time.Minute),
		CheckEvery:      r.duration("PORTAL_PAYMENTS_CHECK_EVERY", 30*time.Second),
		CallTimeout:     r.duration("PORTAL_PAYMENTS_CALL_TIMEOUT", 45*time.Second),
	}
	if c.CheckGrace < c.CallTimeout {
		r.fail("PORTAL_PAYMENTS_CHECK_GRACE", "must be at least PORTAL_PAYMENTS_CALL_TIMEOUT: a payment still on its way must never be called not charged")
	}
	return c
}
