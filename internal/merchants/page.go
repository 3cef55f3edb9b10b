package merchants

import (
	"context"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
)

// historyLimit bounds the merchant's trail on its page.
const historyLimit = 100

// Page is what a merchant's page shows to its viewer: everything to admins
// and the owning rep (credentials masked); to a merchant user, the merchant's
// name, state, their own permissions and, with a terminal or view right, the
// locations: never the application, its personal data or notes, the
// credentials, the other members or the trail.
type Page struct {
	Merchant  *Merchant
	Viewer    Viewer
	Payments  *PaymentAccount
	Terminals *TerminalAccount
	Locations []Location
	Members   []Member
	Events    []StatusEvent
	History   []audit.HistoryEntry
	// SandboxMode: credentials are handed over by the sandbox.
	SandboxMode bool
}

// Permissions is the one list, for the forms.
func (p *Page) Permissions() []PermissionInfo { return AllPermissions() }

// LoadPage gathers a merchant's page for u.
func (s *Service) LoadPage(ctx context.Context, u *models.User, id uuid.UUID) (*Page, error) {
	m, v, err := s.Visible(ctx, u, id)
	if err != nil {
		return nil, err
	}
	p := &Page{Merchant: m, Viewer: v, SandboxMode: s.SandboxMode()}
	if v.Member {
		if v.Permissions.Has(PermUseTerminals) || v.Permissions.Has(PermViewOnly) {
			p.Locations, err = s.d.Store.locations(ctx, nil, id)
		}
		return p, err
	}
	if p.Payments, err = s.d.Store.paymentAccount(ctx, nil, id); err != nil {
		return nil, err
	}
	if p.Terminals, err = s.d.Store.terminalAccount(ctx, nil, id); err != nil {
		return nil, err
	}
	if p.Locations, err = s.d.Store.locations(ctx, nil, id); err != nil {
		return nil, err
	}
	if p.Members, err = s.d.Store.members(ctx, nil, id); err != nil {
		return nil, err
	}
	if p.Events, err = s.d.Store.statusEvents(ctx, m.ApplicationID); err != nil {
		return nil, err
	}
	if p.History, err = audit.HistoryWithOutcomes(ctx, s.d.Store.Pool, audit.Merchant(id), historyLimit, s.d.Outcomes); err != nil {
		return nil, err
	}
	return p, nil
}

// Health sums up the credentials' health for lists: "Not entered",
// "Not tested", "Working", "Failing".
type Health struct {
	Payments  string
	Terminals string
}

// ListRow is a merchant in the list, with its credentials' health.
type ListRow struct {
	Merchant
	Health Health
}

// ListWithHealth returns the merchants u may see with their credentials'
// health (staff), by name.
func (s *Service) ListWithHealth(ctx context.Context, u *models.User) ([]ListRow, error) {
	list, err := s.List(ctx, u)
	if err != nil {
		return nil, err
	}
	rows := make([]ListRow, len(list))
	for i := range list {
		rows[i].Merchant = list[i]
		if !u.IsStaff() {
			continue
		}
		if rows[i].Health, err = s.health(ctx, list[i].ID); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

func (s *Service) health(ctx context.Context, id uuid.UUID) (Health, error) {
	h := Health{Payments: "Not entered", Terminals: "Not entered"}
	pa, err := s.d.Store.paymentAccount(ctx, nil, id)
	if err != nil {
		return h, err
	}
	if pa != nil {
		h.Payments = pa.Check.Health()
	}
	ta, err := s.d.Store.terminalAccount(ctx, nil, id)
	if err != nil || ta == nil {
		return h, err
	}
	locs, err := s.d.Store.locations(ctx, nil, id)
	if err != nil {
		return h, err
	}
	h.Terminals = "Not tested"
	if len(locs) == 0 {
		h.Terminals = "No location"
	}
	for i, l := range locs {
		lh := l.Check.Health()
		if i == 0 || lh == "Failing" || (lh == "Not tested" && h.Terminals == "Working") {
			h.Terminals = lh
		}
	}
	return h, nil
}
