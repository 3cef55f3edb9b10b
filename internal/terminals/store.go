package terminals

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// Errors of the store that the service words for people.
var (
	// errDeviceBusy: the device already has an open launch (the unique
	// index terminal_launches_one_per_device).
	errDeviceBusy = errors.New("terminals: device has an open launch")
	// errSameForm: the launch form was posted before (its one-time token).
	errSameForm = errors.New("terminals: launch form already used")
	// errMoved: a conditional update matched nothing; the launch moved on.
	errMoved = errors.New("terminals: launch is no longer in that state")
)

// Store reads and writes the room's tables: terminal_configs,
// terminal_devices and terminal_launches. Every method takes a
// database.Querier: nil for the pool, or the pgx.Tx of a use case that
// also writes the audit entry and the ledger.
type Store struct{ database.Tables }

// NewStore returns a store on pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{database.Tables{Pool: pool}} }

// launchColumns are the columns of Launch in its order.
const launchColumns = `id, merchant_id, location_id, device_name, kind, state, amount_cents, base_cents,
	invoice_ref, payment_number, transaction_ref, cashier, original_id, linked_ledger_id, resend_of, reason,
	test_mode, form_token, created_by, created_at, sent_at, launched_at, unique_trans_id, follower,
	lease_until, recheck_until, polls, finished_at, resolution, resolved_by, result_message,
	approval_number, masked_account, card_brand, entry_method, processed_cents, tipped_cents,
	adjusted_cents, batch_number, duplicate, problem, ledger_id`

// launches reads the launches a query returns.
func launches(ctx context.Context, q database.Querier, what, sql string, args ...any) ([]*Launch, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	ls, err := pgx.CollectRows(rows, pgx.RowToAddrOfStructByName[Launch])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return ls, nil
}

// oneLaunch reads the one launch a query returns, or models.ErrNotFound.
func oneLaunch(ctx context.Context, q database.Querier, what, sql string, args ...any) (*Launch, error) {
	ls, err := launches(ctx, q, what, sql, args...)
	if err != nil {
		return nil, err
	}
	if len(ls) == 0 {
		return nil, models.ErrNotFound
	}
	return ls[0], nil
}

// InsertLaunch stores a new launch. It returns errSameForm when its form
// token was used before and errDeviceBusy when its device has an open
// launch.
func (s *Store) InsertLaunch(ctx context.Context, q database.Querier, l *Launch) error {
	_, err := s.On(q).Exec(ctx, `INSERT INTO terminal_launches (id, merchant_id, location_id, device_name, kind,
			state, amount_cents, base_cents, invoice_ref, payment_number, transaction_ref, cashier, original_id,
			linked_ledger_id, resend_of, reason, test_mode, form_token, created_by, created_at, sent_at, follower,
			lease_until)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
			$22, $23)`,
		l.ID, l.MerchantID, l.LocationID, l.DeviceName, l.Kind, l.State, l.AmountCents, l.BaseCents, l.InvoiceRef,
		l.PaymentNumber, l.TransactionRef, l.Cashier, l.OriginalID, l.LinkedLedgerID, l.ResendOf, l.Reason,
		l.TestMode, l.FormToken, l.CreatedBy, l.CreatedAt, l.SentAt, l.Follower, l.LeaseUntil)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		switch pgErr.ConstraintName {
		case "terminal_launches_form_token_key":
			return errSameForm
		case "terminal_launches_one_per_device":
			return errDeviceBusy
		}
	}
	if err != nil {
		return fmt.Errorf("insert terminal launch: %w", err)
	}
	return nil
}

// Launch loads a launch by id.
func (s *Store) Launch(ctx context.Context, q database.Querier, id uuid.UUID) (*Launch, error) {
	return oneLaunch(ctx, s.On(q), "load terminal launch", `SELECT `+launchColumns+` FROM terminal_launches WHERE id = $1`, id)
}

// LaunchForUpdate loads a launch and locks its row until tx ends.
func (s *Store) LaunchForUpdate(ctx context.Context, tx pgx.Tx, id uuid.UUID) (*Launch, error) {
	return oneLaunch(ctx, tx, "lock terminal launch", `SELECT `+launchColumns+` FROM terminal_launches WHERE id = $1 FOR UPDATE`, id)
}

// MerchantLaunch loads a launch of merchantID; another merchant's is
// models.ErrNotFound.
func (s *Store) MerchantLaunch(ctx context.Context, merchantID, id uuid.UUID) (*Launch, error) {
	return oneLaunch(ctx, s.Pool, "load terminal launch",
		`SELECT `+launchColumns+` FROM terminal_launches WHERE id = $1 AND merchant_id = $2`, id, merchantID)
}

// LaunchByFormToken loads the launch a form token made.
func (s *Store) LaunchByFormToken(ctx context.Context, token uuid.UUID) (*Launch, error) {
	return oneLaunch(ctx, s.Pool, "load terminal launch by form",
		`SELECT `+launchColumns+` FROM terminal_launches WHERE form_token = $1`, token)
}

// ResendOfLaunch loads the launch that sent id again, or models.ErrNotFound.
func (s *Store) ResendOfLaunch(ctx context.Context, id uuid.UUID) (*Launch, error) {
	return oneLaunch(ctx, s.Pool, "load resend", `SELECT `+launchColumns+` FROM terminal_launches WHERE resend_of = $1`, id)
}

// OpenOnDevice loads the open launch of a device, or models.ErrNotFound.
func (s *Store) OpenOnDevice(ctx context.Context, q database.Querier, locationID, device string) (*Launch, error) {
	return oneLaunch(ctx, s.On(q), "load open terminal launch", `SELECT `+launchColumns+` FROM terminal_launches
		WHERE location_id = $1 AND device_name = $2 AND state IN ('sending', 'waiting', 'unknown')`, locationID, device)
}

// OpenLaunches lists a merchant's open launches.
func (s *Store) OpenLaunches(ctx context.Context, merchantID uuid.UUID) ([]*Launch, error) {
	return launches(ctx, s.Pool, "list open terminal launches", `SELECT `+launchColumns+` FROM terminal_launches
		WHERE merchant_id = $1 AND state IN ('sending', 'waiting', 'unknown') ORDER BY created_at`, merchantID)
}

// RecentLaunches lists a merchant's latest launches, newest first.
func (s *Store) RecentLaunches(ctx context.Context, merchantID uuid.UUID, limit int) ([]*Launch, error) {
	return launches(ctx, s.Pool, "list terminal launches", `SELECT `+launchColumns+` FROM terminal_launches
		WHERE merchant_id = $1 ORDER BY created_at DESC, id LIMIT $2`, merchantID, limit)
}

// SavedCards lists a merchant's approved save-card launches, newest first:
// their cloud ids are the tokens of token sales.
func (s *Store) SavedCards(ctx context.Context, merchantID uuid.UUID) ([]*Launch, error) {
	return launches(ctx, s.Pool, "list saved cards", `SELECT `+launchColumns+` FROM terminal_launches
		WHERE merchant_id = $1 AND kind = 'save_card' AND state = 'approved' AND unique_trans_id IS NOT NULL
		ORDER BY created_at DESC LIMIT 100`, merchantID)
}

// ActingOn lists the launches that act on original (its voids and tips),
// oldest first.
func (s *Store) ActingOn(ctx context.Context, q database.Querier, original uuid.UUID) ([]*Launch, error) {
	return launches(ctx, s.On(q), "list launches acting on a sale", `SELECT `+launchColumns+` FROM terminal_launches
		WHERE original_id = $1 ORDER BY created_at, id`, original)
}

// LockInvoice serialises the launches of one invoice of a merchant until
// tx ends, so two of them never take the same payment number unseen.
func (s *Store) LockInvoice(ctx context.Context, tx pgx.Tx, merchantID uuid.UUID, invoice string) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 18))`, merchantID.String()+"/"+invoice)
	if err != nil {
		return fmt.Errorf("lock invoice: %w", err)
	}
	return nil
}

// NextPaymentNumber is one more than the highest payment number of the
// invoice's approved payments (1 for none): the number grows only when a
// payment is approved.
func (s *Store) NextPaymentNumber(ctx context.Context, q database.Querier, merchantID uuid.UUID, invoice string) (int32, error) {
	var n int32
	err := s.On(q).QueryRow(ctx, `SELECT COALESCE(MAX(payment_number), 0) + 1 FROM terminal_launches
		WHERE merchant_id = $1 AND invoice_ref = $2 AND state = 'approved' AND kind IN ('sale', 'token_sale', 'return')`,
		merchantID, invoice).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("next payment number: %w", err)
	}
	return n, nil
}

// collectIDs reads a column of ids.
func collectIDs(rows pgx.Rows) ([]uuid.UUID, error) {
	return pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
}
