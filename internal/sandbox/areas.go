package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/sandbox/kit"
	"github.com/payportal/portal/internal/sandbox/payments"
	"github.com/payportal/portal/internal/sandbox/terminals"
)

// PaymentsArea is area B, the direct payment API, as the server uses it:
// package payments' *Area.
type PaymentsArea interface {
	// Mount adds the area's API routes, its admin page at
	// /_sandbox/admin/payments and its admin JSON under
	// /_sandbox/admin/api/payments/.
	Mount(mux *http.ServeMux)
	// Provision opens the payment account of a boarded merchant, as the
	// operator's integration specialists would.
	Provision(ctx context.Context, m kit.Merchant) (kit.PaymentCredentials, error)
	Close() error
}

// TerminalsArea is area C, the terminal cloud API: package terminals'
// *Area.
type TerminalsArea interface {
	// Mount adds the area's routes, its admin page at
	// /_sandbox/admin/terminals and its admin JSON under
	// /_sandbox/admin/api/terminals/.
	Mount(mux *http.ServeMux)
	// Provision opens the terminal location of a boarded merchant.
	Provision(ctx context.Context, m kit.Merchant) (kit.TerminalCredentials, error)
	Close() error
}

// plugAreas builds areas B and C: packages payments and terminals, unless
// the options supply other factories.
func (s *Server) plugAreas() error {
	if s.opts.WithoutPaymentsAndTerminals {
		return nil
	}
	if s.opts.Payments == nil {
		s.opts.Payments = func(env kit.Env) (PaymentsArea, error) { return payments.New(env, s.opts.PaymentsOptions) }
	}
	if s.opts.Terminals == nil {
		s.opts.Terminals = func(env kit.Env) (TerminalsArea, error) { return terminals.New(env, s.opts.TerminalsOptions) }
	}
	if s.opts.Payments != nil {
		p, err := s.opts.Payments(s.env)
		if err != nil {
			return fmt.Errorf("sandbox: payments area: %w", err)
		}
		s.payments = p
	}
	if s.opts.Terminals != nil {
		t, err := s.opts.Terminals(s.env)
		if err != nil {
			return fmt.Errorf("sandbox: terminals area: %w", err)
		}
		s.terminals = t
	}
	return nil
}

// The server's buckets.
const (
	bRoot      = "sandbox.meta"      // the manual clock's reading
	bMerchants = "sandbox.merchants" // application id → Credentials
)

// Credentials are what boarding gave a merchant in the areas plugged in:
// null for an area that is not, or that has not provisioned it.
type Credentials struct {
	Payments  *kit.PaymentCredentials  `json:"payments"`
	Terminals *kit.TerminalCredentials `json:"terminals"`
}

// boarded is area A's OnBoarded hook: it provisions the merchant's payment
// account and terminal location in the areas plugged in.
func (s *Server) boarded(ctx context.Context, m kit.Merchant) {
	ctx, cancel := withTimeout(ctx)
	defer cancel()
	if _, err := s.provision(ctx, m); err != nil {
		s.log.Error("sandbox provisioning failed; the credentials route retries it", "application_id", m.ApplicationID, "err", err)
	}
}

// provision provisions m in every area plugged in that has not done so yet
// and returns the credentials known. It is safe to call again: an area
// that has provisioned the merchant is not asked twice.
func (s *Server) provision(ctx context.Context, m kit.Merchant) (Credentials, error) {
	s.provisionMu.Lock()
	defer s.provisionMu.Unlock()
	creds := s.credentials(m.ApplicationID)
	var errs []error
	changed := false
	if s.payments != nil && creds.Payments == nil {
		c, err := s.payments.Provision(ctx, m)
		if err != nil {
			errs = append(errs, fmt.Errorf("payments: %w", err))
		} else {
			creds.Payments, changed = &c, true
		}
	}
	if s.terminals != nil && creds.Terminals == nil {
		c, err := s.terminals.Provision(ctx, m)
		if err != nil {
			errs = append(errs, fmt.Errorf("terminals: %w", err))
		} else {
			creds.Terminals, changed = &c, true
		}
	}
	if changed {
		err := s.store.DB.Update(func(tx *bolt.Tx) error { return kit.Put(tx, bMerchants, m.ApplicationID, creds) })
		errs = append(errs, err)
	}
	return creds, errors.Join(errs...)
}

// credentials reads the stored credentials of an application.
func (s *Server) credentials(appID string) Credentials {
	var c Credentials
	_ = s.store.DB.View(func(tx *bolt.Tx) error { return kit.Get(tx, bMerchants, appID, &c) })
	return c
}

// Credentials returns a boarded application's credentials, provisioning
// them in an area that missed the boarding (plugged in later, or failed).
func (s *Server) Credentials(ctx context.Context, appID string) (Credentials, error) {
	a, ok := s.accounts.Application(appID)
	if !ok {
		return Credentials{}, fmt.Errorf("application %s: %w", appID, accounts.ErrNotFound)
	}
	if !boardedOrLater(a.Status) {
		return Credentials{}, fmt.Errorf("%w: application %s is %s; credentials are issued when it is boarded", errNotBoarded, appID, a.Status)
	}
	return s.provision(ctx, kit.Merchant{ApplicationID: a.ID, ExternalApplicationID: a.ExternalApplicationID, Name: a.Name})
}

var errNotBoarded = errors.New("not boarded")

func boardedOrLater(st accounts.Status) bool {
	return st == accounts.StatusBoarded || st == accounts.StatusInstalled || st == accounts.StatusActive
}

// handleCredentialsJSON answers GET
// /_sandbox/admin/api/merchants/{applicationId}/credentials:
// {"payments": {...}|null, "terminals": {...}|null}; 404 for an unknown
// application, 409 before boarding.
func (s *Server) handleCredentialsJSON(w http.ResponseWriter, r *http.Request) {
	creds, err := s.Credentials(r.Context(), r.PathValue("applicationId"))
	switch {
	case errors.Is(err, accounts.ErrNotFound):
		kit.WriteJSON(w, http.StatusNotFound, map[string]string{"message": "application not found"})
	case errors.Is(err, errNotBoarded):
		kit.WriteJSON(w, http.StatusConflict, map[string]string{"message": err.Error()})
	case err != nil:
		s.log.Error("sandbox credentials incomplete", "application_id", r.PathValue("applicationId"), "err", err)
		kit.WriteJSON(w, http.StatusOK, creds) // what is known; the rest is retried on the next call
	default:
		kit.WriteJSON(w, http.StatusOK, creds)
	}
}
