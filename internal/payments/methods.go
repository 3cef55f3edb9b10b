package payments

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// SavedMethod is a customer's card or bank account kept by the processor: the
// portal holds its token (the uniqueTransId of the transaction that saved
// it) and how it looks, masked.
type SavedMethod struct {
	ID         uuid.UUID
	MerchantID uuid.UUID
	CustomerID uuid.UUID
	// Method is "card" or "bank_account".
	Method    string
	Card      Card
	Token     string
	CreatedAt time.Time
	// Consent is the customer's permission on record.
	ConsentVersion string
	ConsentHow     string
	ConsentAt      time.Time
	ConsentBy      string
}

// IsBank reports a bank account.
func (m SavedMethod) IsBank() bool { return m.Method == "bank_account" }

// The consents the portal records, with the version of the text shown.
const (
	consentSave = "save_method"
	consentACH  = "ach_debit"
	// SaveConsentVersion and ACHConsentVersion name the texts in
	// views/payments (consent text changes get a new version).
	SaveConsentVersion = "save-method-2026-11"
	ACHConsentVersion  = "ach-debit-2026-11"
)

// ConsentWays are how a customer may give consent to keep a method on file.
var ConsentWays = []struct{ Value, Label string }{
	{"in_person", "In person"},
	{"phone", "By phone"},
	{"written", "In writing or by e-mail"},
}

// consent is one consent to record.
type consent struct {
	merchantID    uuid.UUID
	customerID    *uuid.UUID
	purpose, how  string
	givenBy       string
	transactionID *uuid.UUID
}

// consentAAD binds the sealed name of who gave a consent to the consent.
func consentAAD(id uuid.UUID) string { return "consent:" + id.String() + ":given_by" }

// recordConsent stores a consent in tx; givenBy (a person's name) is sealed.
func (s *Service) recordConsent(ctx context.Context, tx pgx.Tx, u *models.User, c consent) error {
	id := uuid.New()
	version := SaveConsentVersion
	if c.purpose == consentACH {
		version = ACHConsentVersion
	}
	givenBy, err := s.ring.Encrypt(c.givenBy, consentAAD(id))
	if err != nil {
		return err
	}
	now := s.now().UTC()
	if _, err := tx.Exec(ctx, `INSERT INTO payment_consents (id, merchant_id, customer_id, purpose, text_version,
			given_how, given_by_sealed, transaction_id, recorded_by, recorded_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		id, c.merchantID, c.customerID, c.purpose, version, c.how, givenBy, c.transactionID, u.ID, now); err != nil {
		return fmt.Errorf("record consent: %w", err)
	}
	if c.transactionID == nil {
		return nil
	}
	kind, msg := EventConsentRecorded, "Consent to keep the payment method on file recorded ("+version+", "+c.how+")"
	if c.purpose == consentACH {
		kind, msg = EventAuthorizationNacha, "The customer's authorization of the debit recorded ("+version+", "+c.how+")"
	}
	return s.ledger.AddEvent(ctx, tx, Event{TransactionID: *c.transactionID, Kind: kind, ActorID: &u.ID, Message: msg, At: now})
}

// afterAnswer completes an answered transaction in the answer's database
// transaction, whoever answered it (the request or the background check): a
// saved method is kept once its tokenization is approved.
func (s *Service) afterAnswer(ctx context.Context, tx pgx.Tx, t *Transaction) error {
	if t.Kind != KindSaveMethod || t.Status != StatusApproved || t.CustomerID == nil || t.UniqueTransID == "" {
		return nil
	}
	id := uuid.New()
	method := "card"
	if t.Source == SourceACH {
		method = "bank_account"
	}
	tag, err := tx.Exec(ctx, `INSERT INTO saved_payment_methods (id, merchant_id, customer_id, method, brand, first6, last4,
			account_type, token, saved_by_transaction, created_by, created_at)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12
		WHERE NOT EXISTS (SELECT 1 FROM saved_payment_methods WHERE saved_by_transaction = $10)`,
		id, t.MerchantID, *t.CustomerID, method, t.Card.Brand, t.Card.First6, t.Card.Last4, t.Card.AccountType,
		t.UniqueTransID, t.ID, t.CreatedBy, s.now().UTC())
	if err != nil {
		return fmt.Errorf("keep saved method: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE payment_consents SET saved_method_id = $1 WHERE transaction_id = $2`, id, t.ID); err != nil {
		return fmt.Errorf("link consent: %w", err)
	}
	_, err = tx.Exec(ctx, `UPDATE ledger_transactions SET saved_method_id = $1 WHERE id = $2`, id, t.ID)
	return err
}

// methods lists a customer's saved methods still on file, with their consent.
func (s *Service) methods(ctx context.Context, q database.Querier, merchantID, customerID uuid.UUID) ([]SavedMethod, error) {
	if q == nil {
		q = s.pool
	}
	rows, err := q.Query(ctx, `SELECT m.id, m.merchant_id, m.customer_id, m.method, m.brand, m.first6, m.last4,
			m.account_type, m.token, m.created_at, COALESCE(c.text_version, ''), COALESCE(c.given_how, ''),
			COALESCE(c.recorded_at, m.created_at),
			COALESCE((SELECT COALESCE(NULLIF(u.name, ''), u.email) FROM users u WHERE u.id = c.recorded_by), '')
		FROM saved_payment_methods m LEFT JOIN payment_consents c ON c.saved_method_id = m.id
		WHERE m.merchant_id = $1 AND m.customer_id = $2 AND m.removed_at IS NULL ORDER BY m.created_at`, merchantID, customerID)
	if err != nil {
		return nil, fmt.Errorf("list saved methods: %w", err)
	}
	defer rows.Close()
	var out []SavedMethod
	for rows.Next() {
		var m SavedMethod
		if err := rows.Scan(&m.ID, &m.MerchantID, &m.CustomerID, &m.Method, &m.Card.Brand, &m.Card.First6, &m.Card.Last4,
			&m.Card.AccountType, &m.Token, &m.CreatedAt, &m.ConsentVersion, &m.ConsentHow, &m.ConsentAt, &m.ConsentBy); err != nil {
			return nil, fmt.Errorf("list saved methods: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// method loads one saved method of a merchant still on file.
func (s *Service) method(ctx context.Context, merchantID, id uuid.UUID) (*SavedMethod, error) {
	var m SavedMethod
	err := s.pool.QueryRow(ctx, `SELECT id, merchant_id, customer_id, method, brand, first6, last4, account_type, token, created_at
		FROM saved_payment_methods WHERE id = $1 AND merchant_id = $2 AND removed_at IS NULL`, id, merchantID).
		Scan(&m.ID, &m.MerchantID, &m.CustomerID, &m.Method, &m.Card.Brand, &m.Card.First6, &m.Card.Last4,
			&m.Card.AccountType, &m.Token, &m.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load saved method: %w", err)
	}
	return &m, nil
}

// RemoveMethod takes a saved method off file (the customer withdrew consent).
func (s *Service) RemoveMethod(ctx context.Context, u *models.User, merchantID, id uuid.UUID) (*SavedMethod, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermSavedMethods)
	if err != nil {
		return nil, err
	}
	sm, err := s.method(ctx, m.ID, id)
	if err != nil {
		return nil, err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		now := s.now().UTC()
		if _, err := tx.Exec(ctx, `UPDATE saved_payment_methods SET removed_at = $2, removed_by = $3 WHERE id = $1 AND removed_at IS NULL`,
			sm.ID, now, u.ID); err != nil {
			return fmt.Errorf("remove saved method: %w", err)
		}
		return audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(m.ID), Actor: audit.ActorOf(u),
			Action: audit.ActionMethodRemoved, Details: audit.PaymentDetails{Card: sm.Card.Label()}, At: now})
	})
	return sm, err
}

// errMethodGone answers a saved method that was removed meanwhile.
var errMethodGone = apperr.Invalid("method_id", "This saved method is no longer on file. Choose another one.")

// methodOf loads a merchant's saved method from its id as typed in a form.
func (s *Service) methodOf(ctx context.Context, merchantID uuid.UUID, typed string) (*SavedMethod, error) {
	id, err := uuid.Parse(typed)
	if err != nil {
		return nil, models.ErrNotFound
	}
	return s.method(ctx, merchantID, id)
}
