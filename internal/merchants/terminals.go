package merchants

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
)

// TerminalLocation is one of a merchant's terminal cloud locations as the
// terminals room needs it: its name and test mode for the pages and, for the
// terminal cloud client only, the merchant's decrypted API key (empty when
// none is set). Never log it or put the key in a page.
type TerminalLocation struct {
	LocationID string
	Name       string
	TestMode   bool
	APIKey     string
}

// TerminalLocations returns a merchant with its live terminal locations. It
// checks nobody's access: the terminals room calls it after Visible (for a
// person) or for its own background work (following a launched
// transaction after a restart).
func (s *Service) TerminalLocations(ctx context.Context, id uuid.UUID) (*Merchant, []TerminalLocation, error) {
	m, err := s.d.Store.Get(ctx, nil, id)
	if err != nil {
		return nil, nil, err
	}
	locs, err := s.terminalLocations(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return m, locs, nil
}

// VisibleTerminals is Visible with u's rights on the merchant's terminals
// (Viewer.TerminalRights, Authorize's rule) and its live terminal locations
// (as TerminalLocations gives them), the merchant read once: for the
// terminals room's pages and actions.
func (s *Service) VisibleTerminals(ctx context.Context, u *models.User, id uuid.UUID) (*Merchant, TerminalRights, []TerminalLocation, error) {
	m, v, err := s.Visible(ctx, u, id)
	if err != nil {
		return nil, TerminalRights{}, nil, err
	}
	locs, err := s.terminalLocations(ctx, id)
	if err != nil {
		return nil, TerminalRights{}, nil, err
	}
	return m, v.TerminalRights(), locs, nil
}

// terminalLocations lists a merchant's live locations with its decrypted
// API key.
func (s *Service) terminalLocations(ctx context.Context, id uuid.UUID) ([]TerminalLocation, error) {
	locs, err := s.d.Store.locations(ctx, nil, id)
	if err != nil {
		return nil, err
	}
	key := ""
	ta, err := s.d.Store.terminalAccount(ctx, nil, id)
	if err != nil {
		return nil, err
	}
	if ta != nil {
		if key, err = s.open(id, aadTerminalKey, ta.sealed); err != nil {
			return nil, fmt.Errorf("merchants: open terminal API key: %w", err)
		}
	}
	out := make([]TerminalLocation, 0, len(locs))
	for _, l := range locs {
		out = append(out, TerminalLocation{LocationID: l.LocationID, Name: l.Name, TestMode: l.TestMode, APIKey: key})
	}
	return out, nil
}
