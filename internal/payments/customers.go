package payments

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// Customer is a merchant's customer: a name, an e-mail address for receipts
// and an optional reference of the merchant's own. It owns saved payment
// methods. Name and e-mail are sealed at rest.
type Customer struct {
	ID         uuid.UUID
	MerchantID uuid.UUID
	Name       string
	Email      string
	Reference  string
	CreatedAt  time.Time
}

// CustomerForm adds or changes a customer.
type CustomerForm struct {
	Name      string `form:"name"`
	Email     string `form:"email"`
	Reference string `form:"reference"`
}

func (f *CustomerForm) validate() (Customer, error) {
	errs := apperr.FieldErrors{}
	c := Customer{Name: strings.TrimSpace(f.Name), Reference: strings.TrimSpace(f.Reference)}
	switch n := len([]rune(c.Name)); {
	case n == 0:
		errs.Add("name", "Enter the customer's name.")
	case n > 100:
		errs.Add("name", "Use at most 100 characters.")
	}
	c.Email = checkEmail("email", f.Email, errs)
	if len([]rune(c.Reference)) > 100 {
		errs.Add("reference", "Use at most 100 characters.")
	}
	return c, errs.Err()
}

func customerAAD(id uuid.UUID, field string) string { return "customer:" + id.String() + ":" + field }

// loadCustomer reads a merchant's customer, or models.ErrNotFound.
func (s *Service) loadCustomer(ctx context.Context, q database.Querier, merchantID, id uuid.UUID) (*Customer, error) {
	if q == nil {
		q = s.pool
	}
	var c Customer
	var name, email string
	err := q.QueryRow(ctx, `SELECT id, merchant_id, name_sealed, email_sealed, reference, created_at FROM payment_customers
		WHERE id = $1 AND merchant_id = $2`, id, merchantID).Scan(&c.ID, &c.MerchantID, &name, &email, &c.Reference, &c.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load customer: %w", err)
	}
	return &c, s.openCustomer(&c, name, email)
}

func (s *Service) openCustomer(c *Customer, name, email string) error {
	var err error
	if c.Name, err = s.ring.Decrypt(name, customerAAD(c.ID, "name")); err != nil {
		return fmt.Errorf("open customer %s: %w", c.ID, err)
	}
	if c.Email, err = s.ring.Decrypt(email, customerAAD(c.ID, "email")); err != nil {
		return fmt.Errorf("open customer %s: %w", c.ID, err)
	}
	return nil
}

// checkCustomer refuses a customer id that is not the merchant's.
func (s *Service) checkCustomer(ctx context.Context, merchantID uuid.UUID, id *uuid.UUID) error {
	if id == nil {
		return nil
	}
	if _, err := s.loadCustomer(ctx, nil, merchantID, *id); errors.Is(err, models.ErrNotFound) {
		return apperr.Invalid("customer_id", "Choose a customer from the list.")
	} else if err != nil {
		return err
	}
	return nil
}

// Customers lists a merchant's customers by name (at most 500, the newest).
func (s *Service) Customers(ctx context.Context, u *models.User, merchantID uuid.UUID) (*Merchant, []Customer, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermView)
	if err != nil {
		return nil, nil, err
	}
	list, err := s.customers(ctx, m.ID)
	return m, list, err
}

func (s *Service) customers(ctx context.Context, merchantID uuid.UUID) ([]Customer, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, merchant_id, name_sealed, email_sealed, reference, created_at
		FROM payment_customers WHERE merchant_id = $1 ORDER BY created_at DESC LIMIT 500`, merchantID)
	if err != nil {
		return nil, fmt.Errorf("list customers: %w", err)
	}
	defer rows.Close()
	var out []Customer
	for rows.Next() {
		var c Customer
		var name, email string
		if err := rows.Scan(&c.ID, &c.MerchantID, &name, &email, &c.Reference, &c.CreatedAt); err != nil {
			return nil, fmt.Errorf("list customers: %w", err)
		}
		if err := s.openCustomer(&c, name, email); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out, nil
}

// CreateCustomer adds a customer (any right to take payments or manage saved
// methods allows it).
func (s *Service) CreateCustomer(ctx context.Context, u *models.User, merchantID uuid.UUID, f *CustomerForm) (*Customer, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermView)
	if err != nil {
		return nil, err
	}
	if !m.Can(PermTakePayments) && !m.Can(PermSavedMethods) {
		return nil, apperr.New(apperr.KindForbidden, "%s", msgNoRight(PermSavedMethods))
	}
	c, err := f.validate()
	if err != nil {
		return nil, err
	}
	c.ID, c.MerchantID, c.CreatedAt = uuid.New(), m.ID, s.now().UTC()
	name, err := s.ring.Encrypt(c.Name, customerAAD(c.ID, "name"))
	if err != nil {
		return nil, err
	}
	email, err := s.ring.Encrypt(c.Email, customerAAD(c.ID, "email"))
	if err != nil {
		return nil, err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO payment_customers (id, merchant_id, name_sealed, email_sealed, reference,
				created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
			c.ID, c.MerchantID, name, email, c.Reference, u.ID, c.CreatedAt); err != nil {
			return fmt.Errorf("add customer: %w", err)
		}
		return audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(m.ID), Actor: audit.ActorOf(u),
			Action: audit.ActionCustomerCreated, Details: audit.PaymentDetails{Note: "customer " + c.ID.String()}, At: c.CreatedAt})
	})
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// CustomerPage is a customer with their saved methods and transactions.
type CustomerPage struct {
	Merchant     *Merchant
	Customer     *Customer
	Methods      []SavedMethod
	Transactions []*Transaction
}

// CustomerView loads a customer's page.
func (s *Service) CustomerView(ctx context.Context, u *models.User, merchantID, id uuid.UUID) (*CustomerPage, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermView)
	if err != nil {
		return nil, err
	}
	c, err := s.loadCustomer(ctx, nil, m.ID, id)
	if err != nil {
		return nil, err
	}
	methods, err := s.methods(ctx, nil, m.ID, c.ID)
	if err != nil {
		return nil, err
	}
	txs, err := s.ledger.many(ctx, nil, `SELECT `+txColumns+` FROM ledger_transactions t
		WHERE t.merchant_id = $1 AND t.customer_id = $2 AND t.kind NOT IN ('capture', 'void', 'tip_adjust')
		ORDER BY t.created_at DESC LIMIT 50`, m.ID, c.ID)
	if err != nil {
		return nil, err
	}
	return &CustomerPage{Merchant: m, Customer: c, Methods: methods, Transactions: txs}, nil
}
