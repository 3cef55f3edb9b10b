package merchants

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/upstream/payments"
	"github.com/payportal/portal/internal/upstream/terminals"
)

// "Test connection" checks a credential against the upstream with a harmless
// read, and says in plain words what is wrong. Area B has no read of an
// account, so the test reads back a transaction that cannot exist (a random
// externalTransactionId): "not found" means the token opened the account,
// 401 that the token is refused. Area C downloads each location's
// configuration. Admins and the owning rep may run them; each test is
// audited, and its outcome is the credential's health on the pages.

// CheckResult is the outcome of one test, as shown.
type CheckResult struct {
	What    string // "Payment account", "Location Main (YZM-5B5-RAC)"
	OK      bool
	Message string
}

// errNoPaymentAccount: there is nothing to test yet.
var errNoPaymentAccount = apperr.New(apperr.KindConflict, "No payment account is entered yet: enter the account id and token first.")

// errNoTerminalAccount: there is nothing to test yet.
var errNoTerminalAccount = apperr.New(apperr.KindConflict, "No terminal cloud API key and location are entered yet: enter them first.")

// staffMerchant loads a merchant for what admins and the owning rep may do.
func (s *Service) staffMerchant(ctx context.Context, u *models.User, id uuid.UUID) (*Merchant, error) {
	m, v, err := s.Visible(ctx, u, id)
	if err != nil {
		return nil, err
	}
	if !v.Staff() {
		return nil, errStaffOnly
	}
	return m, nil
}

// TestPayments tests the payment account's token against the direct
// payment API.
func (s *Service) TestPayments(ctx context.Context, u *models.User, id uuid.UUID) (*CheckResult, error) {
	m, err := s.staffMerchant(ctx, u, id)
	if err != nil {
		return nil, err
	}
	a, err := s.credentials(ctx, m)
	if err != nil {
		return nil, err
	}
	if a.Payments == nil {
		return nil, errNoPaymentAccount
	}
	res := &CheckResult{What: "Payment account " + a.Payments.OID}
	if s.d.Payments == nil {
		res.Message = "The portal has no address for the direct payment API (PORTAL_PAYMENTS_BASE_URL), so nothing can be tested or charged."
	} else {
		cctx, cancel := context.WithTimeout(ctx, defaultCheckTime)
		_, err := s.d.Payments.Get(cctx, *a.Payments, uuid.NewString())
		cancel()
		res.OK, res.Message = paymentsWords(err, a.Payments.OID, s.d.PaymentsURL)
	}
	now := s.now()
	ok := res.OK
	return res, s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.d.Store.setPaymentCheck(ctx, tx, m.ID, res.OK, res.Message, now); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(m.ID), Actor: audit.ActorOf(u), Action: audit.ActionCredentialsTested,
			Details: audit.Details{Area: areaPayments, OK: &ok, Message: res.Message}, At: now})
	})
}

// TestTerminals tests the API key at every location of the merchant.
func (s *Service) TestTerminals(ctx context.Context, u *models.User, id uuid.UUID) ([]CheckResult, error) {
	m, err := s.staffMerchant(ctx, u, id)
	if err != nil {
		return nil, err
	}
	a, err := s.credentials(ctx, m)
	if err != nil {
		return nil, err
	}
	locs, err := s.d.Store.locations(ctx, nil, m.ID)
	if err != nil {
		return nil, err
	}
	if len(a.Locations) == 0 || len(locs) != len(a.Locations) {
		return nil, errNoTerminalAccount
	}
	results := make([]CheckResult, len(locs))
	for i, l := range locs {
		r := CheckResult{What: "Location " + l.Name + " (" + l.LocationID + ")"}
		if s.d.Terminals == nil {
			r.Message = "The portal has no address for the terminal cloud (PORTAL_TERMINALS_BASE_URL), so nothing can be tested or launched."
		} else {
			cctx, cancel := context.WithTimeout(ctx, defaultCheckTime)
			cfg, err := s.d.Terminals.Config(cctx, a.Locations[i])
			cancel()
			r.OK, r.Message = terminalsWords(cfg, err, l.LocationID, s.d.TerminalsURL)
		}
		results[i] = r
	}
	now := s.now()
	return results, s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
		for i, l := range locs {
			r := results[i]
			if err := s.d.Store.setLocationCheck(ctx, tx, l.ID, r.OK, r.Message, now); err != nil {
				return err
			}
			ok := r.OK
			err := audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(m.ID), Actor: audit.ActorOf(u), Action: audit.ActionCredentialsTested,
				Details: audit.Details{Area: areaTerminals, Location: l.Name + " (" + l.LocationID + ")", OK: &ok, Message: r.Message}, At: now})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// paymentsWords says what a test of the payment account found.
func paymentsWords(err error, oid, base string) (bool, string) {
	var pe *payments.Error
	hasPE := errors.As(err, &pe)
	switch {
	case err == nil, errors.Is(err, payments.ErrNotFound):
		// The random transaction is not there (or, impossibly, is): the
		// token opened the account.
		return true, "Connected: the processor accepted the token for account " + oid + "."
	case hasPE && pe.StatusCode == http.StatusUnauthorized:
		return false, "The processor refused the token (HTTP 401): it is wrong, expired or revoked. Ask the operator for the current token and replace it."
	case hasPE && pe.StatusCode == http.StatusForbidden:
		return false, "The processor refused the token for account " + oid + " (HTTP 403): the token belongs to another account, or the account is closed. Check the account id (oid) and the token." + upstreamSaid(pe.Message)
	case hasPE && pe.StatusCode == 0, errors.Is(err, payments.ErrUnknownOutcome), errors.Is(err, context.DeadlineExceeded):
		return false, "The processor did not answer at " + orText(base, "the configured address") + ". Check the address (PORTAL_PAYMENTS_BASE_URL) and the network, then test again."
	case hasPE && (pe.StatusCode == http.StatusTooManyRequests || pe.StatusCode >= 500):
		return false, fmt.Sprintf("The processor is unavailable right now (HTTP %d). Test again in a minute.", pe.StatusCode)
	case hasPE:
		return false, fmt.Sprintf("The processor answered HTTP %d.", pe.StatusCode) + upstreamSaid(pe.Message)
	}
	return false, "The test could not be run: " + err.Error()
}

// terminalsWords says what a test of a location found.
func terminalsWords(cfg *terminals.LocationConfig, err error, locationID, base string) (bool, string) {
	var te *terminals.Error
	hasTE := errors.As(err, &te)
	switch {
	case err == nil:
		var names []string
		for _, d := range cfg.Devices {
			if d.IsActive && !d.IsDeleted {
				names = append(names, d.DeviceName)
			}
		}
		if len(names) == 0 {
			return true, "Connected, but the terminal cloud lists no active terminal at this location."
		}
		return true, fmt.Sprintf("Connected: %d %s (%s).", len(names), plural(len(names), "terminal", "terminals"), strings.Join(names, ", "))
	case errors.Is(err, terminals.ErrUnauthorized):
		return false, "The terminal cloud refused the API key (HTTP 401): it is wrong or revoked. Ask the operator for the current key and replace it."
	case errors.Is(err, terminals.ErrNotFound):
		return false, "The terminal cloud does not know location " + locationID + " under this API key (HTTP 404): check the location id, or that the key is this merchant's."
	case hasTE && te.StatusCode == 0, errors.Is(err, context.DeadlineExceeded):
		return false, "The terminal cloud did not answer at " + orText(base, "the configured address") + ". Check the address (PORTAL_TERMINALS_BASE_URL) and the network, then test again."
	case hasTE && (te.StatusCode == http.StatusTooManyRequests || te.StatusCode >= 500):
		return false, fmt.Sprintf("The terminal cloud is unavailable right now (HTTP %d). Test again in a minute.", te.StatusCode)
	case hasTE:
		return false, fmt.Sprintf("The terminal cloud answered HTTP %d.", te.StatusCode) + upstreamSaid(te.Message)
	}
	return false, "The test could not be run: " + err.Error()
}

func upstreamSaid(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	if r := []rune(msg); len(r) > 200 {
		msg = string(r[:200]) + "…"
	}
	return " It said: " + msg
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
