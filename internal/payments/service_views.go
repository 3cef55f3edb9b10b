package payments

import (
	"context"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
)

// PayView is what the virtual terminal's page shows: the merchant, a fresh
// token per form, the customers to choose from and, with a customer chosen,
// their saved methods.
type PayView struct {
	Merchant                        *Merchant
	CardToken, ACHToken, SavedToken string
	Customers                       []Customer
	Customer                        *Customer
	Methods                         []SavedMethod
	DuplicateWindow                 time.Duration
}

// PayPage loads the virtual terminal for u.
func (s *Service) PayPage(ctx context.Context, u *models.User, merchantID uuid.UUID, customerID *uuid.UUID) (*PayView, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermTakePayments)
	if err != nil {
		return nil, err
	}
	v := &PayView{Merchant: m, DuplicateWindow: s.cfg.DuplicateWindow}
	for purpose, dst := range map[string]*string{PurposePay: &v.CardToken, PurposeACH: &v.ACHToken, PurposeSaved: &v.SavedToken} {
		if *dst, err = s.tokens.Mint(m.ID, u.ID, purpose); err != nil {
			return nil, err
		}
	}
	if v.Customers, err = s.customers(ctx, m.ID); err != nil {
		return nil, err
	}
	if customerID != nil {
		if v.Customer, err = s.loadCustomer(ctx, nil, m.ID, *customerID); err != nil {
			return nil, err
		}
		if v.Methods, err = s.methods(ctx, nil, m.ID, v.Customer.ID); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// LedgerView is one page of a merchant's ledger.
type LedgerView struct {
	Merchant *Merchant
	Page     *Page
	People   []Person
}

// Transactions lists a merchant's ledger.
func (s *Service) Transactions(ctx context.Context, u *models.User, f Filter) (*LedgerView, error) {
	m, err := authorize(ctx, s.merchants, u, f.MerchantID, PermView)
	if err != nil {
		return nil, err
	}
	page, err := s.ledger.List(ctx, nil, f)
	if err != nil {
		return nil, err
	}
	people, err := s.ledger.People(ctx, nil, m.ID)
	if err != nil {
		return nil, err
	}
	if !m.SeesPersonalData {
		for _, t := range page.Transactions {
			t.Billing = Billing{}
		}
	}
	return &LedgerView{Merchant: m, Page: page, People: people}, nil
}

// Export writes the ledger's CSV (masked) and records who exported it.
func (s *Service) Export(ctx context.Context, u *models.User, f Filter, w io.Writer) error {
	m, err := authorize(ctx, s.merchants, u, f.MerchantID, PermView)
	if err != nil {
		return err
	}
	err = audit.Record(ctx, s.pool, audit.Event{Subject: audit.Merchant(m.ID), Actor: audit.ActorOf(u),
		Action: audit.ActionLedgerExported, Details: audit.PaymentDetails{Note: "CSV"}, At: s.now().UTC()})
	if err != nil {
		return err
	}
	return s.ledger.Export(ctx, nil, f, w)
}

// BatchesView is a merchant's batches.
type BatchesView struct {
	Merchant *Merchant
	Batches  []Batch
}

// Batches lists a merchant's batches with their totals.
func (s *Service) Batches(ctx context.Context, u *models.User, merchantID uuid.UUID) (*BatchesView, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermView)
	if err != nil {
		return nil, err
	}
	list, err := s.ledger.Batches(ctx, nil, m.ID, 90)
	if err != nil {
		return nil, err
	}
	return &BatchesView{Merchant: m, Batches: list}, nil
}

// TransactionView is a transaction's page: the transaction, its operations
// and refunds, its timeline, and what the user may do with it now.
type TransactionView struct {
	Merchant    *Merchant
	Transaction *Transaction
	Parent      *Transaction
	Children    []*Transaction
	Timeline    []Event
	Customer    *Customer
	Plan        *ReversePlan
	// Tokens of the forms the user may send (empty when they may not).
	ReverseToken, CaptureToken, TipToken string
	CanReceipt                           bool
	// CheckUntil is when an unknown outcome will be settled as not charged.
	CheckUntil time.Time
}

// Transaction loads a transaction's page for u.
func (s *Service) Transaction(ctx context.Context, u *models.User, merchantID, id uuid.UUID) (*TransactionView, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermView)
	if err != nil {
		return nil, err
	}
	t, err := s.ledger.Get(ctx, nil, m.ID, id)
	if err != nil {
		return nil, err
	}
	v := &TransactionView{Merchant: m, Transaction: t}
	if t.ParentID != nil {
		if v.Parent, err = s.ledger.Get(ctx, nil, m.ID, *t.ParentID); err != nil {
			return nil, err
		}
	}
	if v.Children, err = s.ledger.Children(ctx, nil, t.ID); err != nil {
		return nil, err
	}
	if v.Timeline, err = s.ledger.Timeline(ctx, nil, t.ID); err != nil {
		return nil, err
	}
	if t.CustomerID != nil && m.SeesPersonalData {
		if v.Customer, err = s.loadCustomer(ctx, nil, m.ID, *t.CustomerID); err != nil {
			return nil, err
		}
	}
	if !m.SeesPersonalData {
		t.Billing = Billing{}
	}
	if t.Status == StatusChecking {
		v.CheckUntil = t.CreatedAt.Add(s.cfg.CheckGrace)
		if t.CheckUntil != nil {
			v.CheckUntil = *t.CheckUntil
		}
	}
	return v, s.actions(ctx, u, m, v)
}

// actions mints the tokens of the forms u may send on the transaction now:
// one row per form, with the rights and state it needs.
func (s *Service) actions(ctx context.Context, u *models.User, m *Merchant, v *TransactionView) error {
	t := v.Transaction
	if !m.CanTransact() || t.Kind.IsOperation() {
		return nil
	}
	var err error
	if v.Plan, err = s.plan(ctx, nil, m, t); err != nil {
		return err
	}
	for _, form := range []struct {
		offered bool
		token   *string
		purpose string
	}{
		{mayReverse(m, v.Plan), &v.ReverseToken, PurposeReverse(t.ID)},
		{m.Can(PermCaptureAdjust) && capturable(t), &v.CaptureToken, PurposeCapture(t.ID)},
		{m.Can(PermCaptureAdjust) && tippable(t, v.Plan), &v.TipToken, PurposeTip(t.ID)},
	} {
		if !form.offered {
			continue
		}
		if *form.token, err = s.tokens.Mint(m.ID, u.ID, form.purpose); err != nil {
			return err
		}
	}
	v.CanReceipt = (m.Can(PermTakePayments) || m.Can(PermRefund)) && t.Status.Succeeded() && t.Kind != KindSaveMethod
	return nil
}

// mayReverse reports a payment the plan lets u void or refund, by their rights.
func mayReverse(m *Merchant, p *ReversePlan) bool {
	return m.Can(PermVoid) && p.Void || m.Can(PermRefund) && p.Refund
}

// capturable reports an authorization waiting for its capture.
func capturable(t *Transaction) bool {
	return t.Kind == KindAuthorization && t.Status == StatusApproved
}

// tippable reports a card payment whose tip may still change: an approved sale or
// a captured authorization, before it settles.
func tippable(t *Transaction, p *ReversePlan) bool {
	return t.Source == SourceCard && !p.Settled && (t.Kind == KindSale && t.Status == StatusApproved ||
		t.Kind == KindAuthorization && t.Status == StatusCaptured)
}

// Reload reads a transaction again (an htmx poll of an open one).
func (s *Service) Reload(ctx context.Context, u *models.User, merchantID, id uuid.UUID) (*Transaction, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermView)
	if err != nil {
		return nil, err
	}
	return s.ledger.Get(ctx, nil, m.ID, id)
}

// ReversePage is the Reverse form's page.
type ReversePage struct {
	Plan  *ReversePlan
	Token string
}

// ReverseFormFor loads the Reverse form: the plan and a fresh token.
func (s *Service) ReverseFormFor(ctx context.Context, u *models.User, merchantID, id uuid.UUID) (*ReversePage, error) {
	p, err := s.PlanReverse(ctx, u, merchantID, id)
	if err != nil {
		return nil, err
	}
	if !p.Merchant.Can(PermVoid) && !p.Merchant.Can(PermRefund) {
		return nil, forbidden(PermRefund)
	}
	token, err := s.tokens.Mint(p.Merchant.ID, u.ID, PurposeReverse(id))
	return &ReversePage{Plan: p, Token: token}, err
}
