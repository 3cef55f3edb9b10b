package payments

import "github.com/payportal/portal/internal/sandbox/kit"

// void cancels an unsettled transaction. On the direct gateway a sale more
// than 25 minutes old, still unsettled, is refunded instead: the answer is
// then a CreditReturn (AchReturn for a bank account) with a new
// uniqueTransId.
func (p *proc) void() (*Transaction, error) {
	ref, v, err := p.ref()
	if err != nil {
		return nil, err
	}
	if err := p.voidable(ref); err != nil {
		return nil, err
	}
	late := p.now.Sub(ref.CreatedAt) > VoidWindow
	if late && ref.Type != typeAuth {
		if ref.Type == typeReturn || ref.Type == typeACHReturn {
			return nil, p.refused("a return can be voided only within 25 minutes of it")
		}
		return p.autoRefund(ref, v)
	}
	if ref.RefundedCents > 0 {
		return nil, p.refused("the transaction has refunds; it can no longer be voided")
	}
	t := p.newTxn(typeVoid, v)
	t.Ref = ref.UniqueTransID
	t.Answer.BillingName, t.Answer.TransactionReference = ref.Answer.BillingName, ref.Answer.TransactionReference
	p.approve(t, ref.AmountCents, ref.TipCents, ref.TaxCents, ref.ProcessedCents)
	ref.VoidedBy = t.UniqueTransID
	if err := p.a.updateTransaction(p.tx, ref); err != nil {
		return nil, err
	}
	return t, p.voidCapturedAuth(ref, t)
}

// voidable refuses what cannot be voided whatever its age: another kind of
// transaction, a declined one, one voided, settled, captured or lapsed.
func (p *proc) voidable(ref *Transaction) error {
	switch ref.Type {
	case typeSale, typeAuth, typeForce, typeReturn, typeACHSale, typeACHReturn:
	default:
		return kit.FieldError(p.field("uniqueTransId"), "refers to a "+ref.Type+", which cannot be voided")
	}
	switch {
	case !ref.Approved:
		return kit.FieldError(p.field("uniqueTransId"), "refers to a declined transaction; there is nothing to void")
	case ref.VoidedBy != "":
		return p.refused("the transaction has already been voided")
	case ref.SettledAt != nil:
		return p.refused("the transaction has already settled and cannot be voided; refund it instead")
	case ref.Type == typeAuth && ref.CapturedBy != "":
		return p.refused("the authorization has been captured; void the capture (CreditForce) instead")
	case ref.lapsed(p.now, p.a.opts.AuthLapse):
		return p.refused("the authorization has lapsed; there is nothing to void")
	}
	return nil
}

// voidCapturedAuth marks the authorization a voided capture captured as
// voided too.
func (p *proc) voidCapturedAuth(ref, void *Transaction) error {
	if ref.Type != typeForce || ref.Ref == "" {
		return nil
	}
	// A capture whose authorization cannot be read is still voided.
	if auth, err := p.a.transaction(p.tx, p.acct.OID, ref.Ref); err == nil && auth != nil {
		auth.VoidedBy = void.UniqueTransID
		return p.a.updateTransaction(p.tx, auth)
	}
	return nil
}

// autoRefund is the 25-minute rule: it refunds what is left of ref.
func (p *proc) autoRefund(ref *Transaction, v *vaultEntry) (*Transaction, error) {
	left := ref.ProcessedCents - ref.RefundedCents
	if left <= 0 {
		return nil, p.refused("the transaction has already been refunded in full")
	}
	typ := typeReturn
	if ref.Type == typeACHSale {
		typ = typeACHReturn
	}
	t := p.newTxn(typ, v)
	t.Ref = ref.UniqueTransID
	t.Answer.BillingName, t.Answer.TransactionReference = ref.Answer.BillingName, ref.Answer.TransactionReference
	p.approve(t, left, 0, 0, left)
	ref.RefundedCents += left
	return t, p.a.updateTransaction(p.tx, ref)
}

// adjust changes a sale's tip (SaleAdjust) or an authorization's amount
// and tip (AuthAdjust) before settlement.
func (p *proc) adjust() (*Transaction, error) {
	ref, v, err := p.ref()
	if err != nil {
		return nil, err
	}
	adjustTo := p.authAdjust
	if p.q.str("adjustmentType") == "SaleAdjust" {
		adjustTo = p.saleAdjust
	}
	if err := adjustTo(ref); err != nil {
		return nil, err
	}
	ra := &ref.Answer
	ra.Amount, ra.AmountTipped, ra.AmountProcessed = money(ref.AmountCents), money(ref.TipCents), money(ref.ProcessedCents)
	if err := p.a.updateTransaction(p.tx, ref); err != nil {
		return nil, err
	}
	t := p.newTxn(typeAdjust, v)
	t.Ref = ref.UniqueTransID
	t.Answer.BillingName = ref.Answer.BillingName
	p.approve(t, ref.AmountCents, ref.TipCents, ref.TaxCents, ref.ProcessedCents)
	return t, nil
}

// saleAdjust changes the tip of an approved, unsettled, fully approved sale
// (or capture), never below what has been refunded.
func (p *proc) saleAdjust(ref *Transaction) error {
	q := p.q
	switch {
	case ref.Type != typeSale && ref.Type != typeForce:
		return kit.FieldError(p.field("uniqueTransId"), "refers to a "+ref.Type+"; SaleAdjust adjusts a sale")
	case !ref.Approved:
		return kit.FieldError(p.field("uniqueTransId"), "refers to a declined sale")
	case ref.VoidedBy != "":
		return p.refused("the sale has been voided")
	case ref.SettledAt != nil:
		return p.refused("the sale has already settled and can no longer be adjusted")
	case ref.Answer.IsPartialApproval == "true":
		return kit.FieldError(p.field("uniqueTransId"), "refers to a partially approved sale, which cannot be adjusted")
	case q.hasAmount:
		return kit.FieldError(p.field("amount"), "SaleAdjust changes only the tip; AuthAdjust changes an authorization's amount")
	case !q.hasTip:
		return kit.FieldError(p.field("tipAmount"), "is required for SaleAdjust")
	case ref.AmountCents+q.tip < ref.RefundedCents:
		return kit.FieldError(p.field("tipAmount"), "would leave the sale below what has been refunded")
	}
	ref.TipCents, ref.ProcessedCents = q.tip, ref.AmountCents+q.tip
	return nil
}

// authAdjust changes the amount, the tip or both of an authorization that
// could still be captured.
func (p *proc) authAdjust(ref *Transaction) error {
	q := p.q
	if err := p.capturable(ref, "AuthAdjust adjusts"); err != nil {
		return err
	}
	switch {
	case ref.Answer.IsPartialApproval == "true":
		return kit.FieldError(p.field("uniqueTransId"), "refers to a partially approved authorization, which cannot be adjusted")
	case !q.hasAmount && !q.hasTip:
		return kit.FieldError(p.field("amount"), "AuthAdjust needs amount, tipAmount or both")
	case q.hasAmount && q.amount < ref.TaxCents:
		return kit.FieldError(p.field("amount"), "cannot be less than the tax it includes")
	}
	if q.hasAmount {
		ref.AmountCents = q.amount
	}
	if q.hasTip {
		ref.TipCents = q.tip
	}
	ref.ProcessedCents = ref.AmountCents + ref.TipCents
	return nil
}
