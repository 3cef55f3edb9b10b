package payments

import (
	"net/http"
	"strings"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// ref reads the transaction the request's uniqueTransId names, with its
// vault entry (nil for none).
func (p *proc) ref() (*Transaction, *vaultEntry, error) {
	t, err := p.a.transaction(p.tx, p.acct.OID, p.q.str("uniqueTransId"))
	if err != nil {
		return nil, nil, err
	}
	if t == nil {
		e := kit.NewError(http.StatusNotFound, "%s: no transaction with this uniqueTransId on this account", p.field("uniqueTransId"))
		e.Field = p.field("uniqueTransId")
		return nil, nil, e
	}
	if t.VaultToken == "" {
		return t, nil, nil
	}
	v, err := p.a.vaultGet(p.tx, t.VaultToken)
	return t, v, err
}

// refused is a 409 about the referenced transaction.
func (p *proc) refused(format string, args ...any) *kit.APIError {
	e := kit.NewError(http.StatusConflict, "%s: "+format, append([]any{p.field("uniqueTransId")}, args...)...)
	e.Field = p.field("uniqueTransId")
	return e
}

// tokenizedPayment charges (or authorizes) the card or bank account saved
// by an earlier transaction.
func (p *proc) tokenizedPayment(typ string) (*Transaction, error) {
	ref, v, err := p.ref()
	if err != nil {
		return nil, err
	}
	if !ref.Approved || v == nil {
		return nil, kit.FieldError(p.field("uniqueTransId"), "refers to a transaction that saved no card or bank account")
	}
	if v.Kind == "bank" {
		if typ == typeAuth {
			return nil, kit.FieldError(p.field("uniqueTransId"), "refers to a bank account, which cannot be authorized")
		}
		if p.q.hasTip || p.q.hasTax || p.q.level2 != nil {
			return nil, kit.FieldError(p.field("tipAmount"), "tip, tax and level 2 data apply to cards only")
		}
		t := p.newTxn(typeACHSale, v)
		p.approve(t, p.q.amount, 0, 0, p.q.amount)
		t.ReturnCode, t.Ref = returnCodeOf(v.Behavior), ref.UniqueTransID
		return t, nil
	}
	t := p.newTxn(typ, v)
	t.Ref = ref.UniqueTransID
	if t.Answer.BillingName == "" {
		t.Answer.BillingName = ref.Answer.BillingName
	}
	p.charge(t, v)
	return t, nil
}

// tokenizedRefund refunds part or all of a payment, capped at what is left
// to refund.
func (p *proc) tokenizedRefund() (*Transaction, error) {
	ref, v, err := p.ref()
	if err != nil {
		return nil, err
	}
	switch {
	case ref.Type != typeSale && ref.Type != typeForce && ref.Type != typeACHSale:
		return nil, kit.FieldError(p.field("uniqueTransId"), "refers to a "+ref.Type+"; refunds link to a sale, a capture (CreditForce) or an ACH sale")
	case !ref.Approved || v == nil:
		return nil, kit.FieldError(p.field("uniqueTransId"), "refers to a declined transaction; there is nothing to refund")
	case ref.VoidedBy != "":
		return nil, p.refused("the transaction has been voided; there is nothing to refund")
	}
	left := ref.ProcessedCents - ref.RefundedCents
	if p.q.amount > left {
		return nil, kit.FieldError(p.field("amount"), "exceeds the "+money(left)+" left to refund on this transaction")
	}
	typ := typeReturn
	if v.Kind == "bank" {
		typ = typeACHReturn
	}
	t := p.newTxn(typ, v)
	t.Ref = ref.UniqueTransID
	if t.Answer.BillingName == "" {
		t.Answer.BillingName = ref.Answer.BillingName
	}
	p.approve(t, p.q.amount, 0, 0, p.q.amount)
	ref.RefundedCents += p.q.amount
	if err := p.a.updateTransaction(p.tx, ref); err != nil {
		return nil, err
	}
	if v.Kind == "bank" {
		return t, nil
	}
	return t, p.review(t, v, ref)
}

// review flags a card return the operator would hold for review: partial,
// to another card than was charged, or larger than usual (more than the
// account's largest card charge).
func (p *proc) review(t *Transaction, v *vaultEntry, orig *Transaction) error {
	h, err := p.cardHistory(v, t.CreatedAt)
	if err != nil {
		return err
	}
	amount := t.ProcessedCents
	var reasons []string
	switch {
	case orig != nil && amount < orig.ProcessedCents:
		reasons = append(reasons, "partial")
	case orig == nil && !h.charged:
		reasons = append(reasons, "otherCard")
	case orig == nil && amount < h.lastOnCard:
		reasons = append(reasons, "partial")
	}
	if amount > h.largest {
		reasons = append(reasons, "largerThanUsual")
	}
	if len(reasons) > 0 {
		t.Review = reasons
		t.Answer.HeldForReview, t.Answer.ReviewReasons = "true", strings.Join(reasons, ",")
	}
	return nil
}

// cardHistory is what review compares a return with: the account's
// approved, unvoided card charges.
type cardHistory struct {
	largest    int64 // the largest charge on any card
	charged    bool  // whether this card was ever charged
	lastOnCard int64 // the latest charge on this card
}

// cardHistory reads the account's charges; at is the time of the return.
func (p *proc) cardHistory(v *vaultEntry, at time.Time) (cardHistory, error) {
	var h cardHistory
	lastAt := at.AddDate(-100, 0, 0)
	err := eachTransaction(p.tx, p.acct.OID, func(x *Transaction) error {
		if !x.Approved || x.VoidedBy != "" || (x.Type != typeSale && x.Type != typeForce) {
			return nil
		}
		h.largest = max(h.largest, x.ProcessedCents)
		if x.VaultToken == v.Token {
			h.charged = true
			if x.CreatedAt.After(lastAt) {
				lastAt, h.lastOnCard = x.CreatedAt, x.ProcessedCents
			}
		}
		return nil
	})
	return h, err
}

// force captures an authorization into the open batch.
func (p *proc) force() (*Transaction, error) {
	ref, v, err := p.ref()
	if err != nil {
		return nil, err
	}
	if err := p.capturable(ref, "tokenizedForce captures"); err != nil {
		return nil, err
	}
	authorized := ref.ProcessedCents - ref.TipCents
	amount, tip, tax := authorized, ref.TipCents, ref.TaxCents
	if p.q.hasAmount {
		if p.q.amount > authorized {
			return nil, kit.FieldError(p.field("amount"), "cannot exceed the authorized "+money(authorized))
		}
		amount = p.q.amount
	}
	if p.q.hasTip {
		tip = p.q.tip
	}
	if p.q.hasTax {
		tax = p.q.tax
	}
	if tax > amount {
		return nil, kit.FieldError(p.field("taxAmount"), "cannot exceed the amount, which includes it")
	}
	t := p.newTxn(typeForce, v)
	t.Ref = ref.UniqueTransID
	t.Answer.BillingName = ref.Answer.BillingName
	p.approve(t, amount, tip, tax, amount+tip)
	ref.CapturedBy = t.UniqueTransID
	return t, p.a.updateTransaction(p.tx, ref)
}

// capturable checks that ref is an authorization that can still be
// captured or adjusted.
func (p *proc) capturable(ref *Transaction, what string) error {
	switch {
	case ref.Type != typeAuth:
		return kit.FieldError(p.field("uniqueTransId"), "refers to a "+ref.Type+"; "+what+" an authorization (CreditAuth)")
	case !ref.Approved:
		return kit.FieldError(p.field("uniqueTransId"), "refers to a declined authorization")
	case ref.VoidedBy != "":
		return p.refused("the authorization has been voided")
	case ref.CapturedBy != "":
		return p.refused("the authorization has already been captured")
	case ref.lapsed(p.now, p.a.opts.AuthLapse):
		return p.refused("the authorization has lapsed; authorize again")
	}
	return nil
}
