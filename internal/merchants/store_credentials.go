package merchants

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
)

// paymentAccount loads a merchant's payment account; nil when none is set.
func (s *Store) paymentAccount(ctx context.Context, q database.Querier, merchantID uuid.UUID) (*PaymentAccount, error) {
	var p PaymentAccount
	err := s.On(q).QueryRow(ctx, `SELECT oid, token_sealed, token_last4, source, updated_by, updated_at, checked_at, check_ok, check_message
		FROM merchant_payment_accounts WHERE merchant_id = $1`, merchantID).
		Scan(&p.OID, &p.sealed, &p.TokenLast4, &p.Source, &p.UpdatedBy, &p.UpdatedAt, &p.Check.At, &p.Check.OK, &p.Check.Message)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load payment account: %w", err)
	}
	return &p, nil
}

// putPaymentAccount stores the payment account; with onlyIfMissing it keeps
// one already there (an admin's entry outranks the sandbox's hand-over). It
// reports whether it stored it. A new token has not been tested.
func (s *Store) putPaymentAccount(ctx context.Context, tx pgx.Tx, merchantID uuid.UUID, oid, sealed, last4, source string, by *uuid.UUID, now time.Time, onlyIfMissing bool) (bool, error) {
	conflict := `ON CONFLICT (merchant_id) DO UPDATE SET oid = EXCLUDED.oid, token_sealed = EXCLUDED.token_sealed,
		token_last4 = EXCLUDED.token_last4, source = EXCLUDED.source, updated_by = EXCLUDED.updated_by,
		updated_at = EXCLUDED.updated_at, checked_at = NULL, check_ok = NULL, check_message = ''`
	if onlyIfMissing {
		conflict = `ON CONFLICT (merchant_id) DO NOTHING`
	}
	tag, err := tx.Exec(ctx, `INSERT INTO merchant_payment_accounts (merchant_id, oid, token_sealed, token_last4, source, updated_by, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) `+conflict, merchantID, oid, sealed, last4, source, by, now)
	if err != nil {
		return false, fmt.Errorf("store payment account: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}

// setPaymentCheck records a test of the payment account.
func (s *Store) setPaymentCheck(ctx context.Context, q database.Querier, merchantID uuid.UUID, ok bool, message string, at time.Time) error {
	_, err := s.On(q).Exec(ctx, `UPDATE merchant_payment_accounts SET checked_at = $2, check_ok = $3, check_message = $4 WHERE merchant_id = $1`,
		merchantID, at, ok, message)
	return wrap("record payment account test", err)
}

// terminalAccount loads a merchant's terminal cloud API key; nil when none.
func (s *Store) terminalAccount(ctx context.Context, q database.Querier, merchantID uuid.UUID) (*TerminalAccount, error) {
	var t TerminalAccount
	err := s.On(q).QueryRow(ctx, `SELECT api_key_sealed, api_key_last4, source, updated_by, updated_at
		FROM merchant_terminal_accounts WHERE merchant_id = $1`, merchantID).
		Scan(&t.sealed, &t.APIKeyLast4, &t.Source, &t.UpdatedBy, &t.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load terminal account: %w", err)
	}
	return &t, nil
}

// putTerminalAccount stores the API key, like putPaymentAccount.
func (s *Store) putTerminalAccount(ctx context.Context, tx pgx.Tx, merchantID uuid.UUID, sealed, last4, source string, by *uuid.UUID, now time.Time, onlyIfMissing bool) (bool, error) {
	conflict := `ON CONFLICT (merchant_id) DO UPDATE SET api_key_sealed = EXCLUDED.api_key_sealed, api_key_last4 = EXCLUDED.api_key_last4,
		source = EXCLUDED.source, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at`
	if onlyIfMissing {
		conflict = `ON CONFLICT (merchant_id) DO NOTHING`
	}
	tag, err := tx.Exec(ctx, `INSERT INTO merchant_terminal_accounts (merchant_id, api_key_sealed, api_key_last4, source, updated_by, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6) `+conflict, merchantID, sealed, last4, source, by, now)
	if err != nil {
		return false, fmt.Errorf("store terminal account: %w", err)
	}
	if tag.RowsAffected() > 0 && !onlyIfMissing {
		// A new key has not been tested at any location.
		_, err = tx.Exec(ctx, `UPDATE merchant_locations SET checked_at = NULL, check_ok = NULL, check_message = ''
			WHERE merchant_id = $1 AND removed_at IS NULL`, merchantID)
	}
	return tag.RowsAffected() > 0, wrap("reset location tests", err)
}

// locations lists a merchant's live locations by name.
func (s *Store) locations(ctx context.Context, q database.Querier, merchantID uuid.UUID) ([]Location, error) {
	rows, err := s.On(q).Query(ctx, `SELECT id, merchant_id, location_id, name, test_mode, created_at, updated_at, checked_at, check_ok, check_message
		FROM merchant_locations WHERE merchant_id = $1 AND removed_at IS NULL ORDER BY lower(name), location_id`, merchantID)
	if err != nil {
		return nil, fmt.Errorf("load locations: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Location, error) {
		var l Location
		err := row.Scan(&l.ID, &l.MerchantID, &l.LocationID, &l.Name, &l.TestMode, &l.CreatedAt, &l.UpdatedAt,
			&l.Check.At, &l.Check.OK, &l.Check.Message)
		return l, err
	})
}

// errLocationTaken: the merchant has a live location with that id.
var errLocationTaken = errors.New("merchants: location id taken")

// addLocation adds a live location; errLocationTaken when its id is there.
func (s *Store) addLocation(ctx context.Context, tx pgx.Tx, l Location) error {
	tag, err := tx.Exec(ctx, `INSERT INTO merchant_locations (id, merchant_id, location_id, name, test_mode, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (merchant_id, location_id) WHERE removed_at IS NULL DO NOTHING`,
		l.ID, l.MerchantID, l.LocationID, l.Name, l.TestMode, l.CreatedAt)
	if err != nil {
		return fmt.Errorf("add location: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return errLocationTaken
	}
	return nil
}

// location loads one live location of a merchant.
func (s *Store) location(ctx context.Context, q database.Querier, merchantID, id uuid.UUID) (*Location, error) {
	all, err := s.locations(ctx, q, merchantID)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].ID == id {
			return &all[i], nil
		}
	}
	return nil, errNoLocation
}

// updateLocation changes a location's name and test mode.
func (s *Store) updateLocation(ctx context.Context, tx pgx.Tx, merchantID, id uuid.UUID, name string, testMode bool, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE merchant_locations SET name = $3, test_mode = $4, updated_at = $5
		WHERE merchant_id = $1 AND id = $2 AND removed_at IS NULL`, merchantID, id, name, testMode, now)
	return wrap("change location", err)
}

// removeLocation retires a location; its row stays for the transactions that name it.
func (s *Store) removeLocation(ctx context.Context, tx pgx.Tx, merchantID, id uuid.UUID, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE merchant_locations SET removed_at = $3, updated_at = $3
		WHERE merchant_id = $1 AND id = $2 AND removed_at IS NULL`, merchantID, id, now)
	return wrap("remove location", err)
}

// setLocationCheck records a test of a location.
func (s *Store) setLocationCheck(ctx context.Context, q database.Querier, id uuid.UUID, ok bool, message string, at time.Time) error {
	_, err := s.On(q).Exec(ctx, `UPDATE merchant_locations SET checked_at = $2, check_ok = $3, check_message = $4 WHERE id = $1`,
		id, at, ok, message)
	return wrap("record location test", err)
}
