package payments

import (
	"context"
	"strings"
)

// Authorize authorizes a charge on a keyed card (CreditAuth). Capture it
// with Force; an authorization never captured lapses and never settles.
func (c *Client) Authorize(ctx context.Context, acct Account, p CardPayment) (*Transaction, error) {
	return c.cardPayment(ctx, acct, "authorization", p)
}

// Sale charges a keyed card at once (CreditSale).
func (c *Client) Sale(ctx context.Context, acct Account, p CardPayment) (*Transaction, error) {
	return c.cardPayment(ctx, acct, "sale", p)
}

func (c *Client) cardPayment(ctx context.Context, acct Account, op string, p CardPayment) (*Transaction, error) {
	var ck checker
	ck.ref(p.Ref, false)
	ck.card(p.Card)
	ck.amount("amount", p.Amount, true)
	ck.amount("tipAmount", p.TipAmount, false)
	ck.amount("taxAmount", p.TaxAmount, false)
	ck.level2(p.Level2)
	d := refData(p.Ref, false)
	d.setCard(p.Card, p.Billing)
	d.Amount, d.TipAmount, d.TaxAmount, d.Level2 = string(p.Amount), string(p.TipAmount), string(p.TaxAmount), p.Level2
	return c.write(ctx, acct, op, "transactions/"+op, p.Ref, wireBody{TransactionData: d}, ck.err)
}

// Refund credits the card supplied (an unlinked CreditReturn). Prefer
// TokenizedRefund, which links the refund to its payment.
func (c *Client) Refund(ctx context.Context, acct Account, r CardRefund) (*Transaction, error) {
	var ck checker
	ck.ref(r.Ref, false)
	ck.card(r.Card)
	ck.amount("amount", r.Amount, true)
	d := refData(r.Ref, false)
	d.setCard(r.Card, r.Billing)
	d.Amount = string(r.Amount)
	return c.write(ctx, acct, "refund", "transactions/refund", r.Ref, wireBody{TransactionData: d}, ck.err)
}

// TokenizeCard saves a card (CreditSaveCard); the answer's UniqueTransID
// pays with it later.
func (c *Client) TokenizeCard(ctx context.Context, acct Account, t CardTokenize) (*Transaction, error) {
	var ck checker
	ck.ref(t.Ref, false)
	ck.card(t.Card)
	d := refData(t.Ref, false)
	d.setCard(t.Card, t.Billing)
	return c.write(ctx, acct, "tokenize", "transactions/tokenize", t.Ref, wireBody{AccountData: d}, ck.err)
}

// Void cancels an unsettled authorization or payment. More than 25 minutes
// after the transaction the upstream refunds it instead: check the
// answer's IsRefund. A settled transaction is refused (ErrAlreadySettled).
func (c *Client) Void(ctx context.Context, acct Account, v VoidRequest) (*Transaction, error) {
	var ck checker
	ck.ref(v.Ref, true)
	ck.uniqueTransID(v.UniqueTransID)
	d := refData(v.Ref, true)
	d.UniqueTransID = v.UniqueTransID
	return c.write(ctx, acct, "void", "transactions/void", v.Ref, wireBody{TransactionData: d}, ck.err)
}

// ACHSale debits a bank account (AchSale).
func (c *Client) ACHSale(ctx context.Context, acct Account, p ACHPayment) (*Transaction, error) {
	return c.achPayment(ctx, acct, "ach/sale", p)
}

// ACHRefund credits a bank account (AchReturn, unlinked upstream).
func (c *Client) ACHRefund(ctx context.Context, acct Account, p ACHPayment) (*Transaction, error) {
	return c.achPayment(ctx, acct, "ach/refund", p)
}

func (c *Client) achPayment(ctx context.Context, acct Account, op string, p ACHPayment) (*Transaction, error) {
	var ck checker
	ck.ref(p.Ref, false)
	ck.bank(p.Account)
	ck.amount("amount", p.Amount, true)
	d := refData(p.Ref, false)
	d.setBank(p.Account)
	d.Amount, d.CheckNumber = string(p.Amount), p.CheckNumber
	d.BillingAddress, d.BillingPostalCode = p.BillingAddress, p.BillingPostalCode
	return c.write(ctx, acct, strings.ReplaceAll(op, "/", " "), "transactions/"+op, p.Ref, wireBody{TransactionData: d}, ck.err)
}

// TokenizeBankAccount saves a bank account (AchSaveAccount).
func (c *Client) TokenizeBankAccount(ctx context.Context, acct Account, t ACHTokenize) (*Transaction, error) {
	var ck checker
	ck.ref(t.Ref, false)
	ck.bank(t.Account)
	d := refData(t.Ref, false)
	d.setBank(t.Account)
	d.BillingAddress, d.BillingPostalCode = t.BillingAddress, t.BillingPostalCode
	return c.write(ctx, acct, "ach tokenize", "transactions/ach/tokenize", t.Ref, wireBody{AccountData: d}, ck.err)
}

// TokenizedPayment charges a saved card (CreditSale).
func (c *Client) TokenizedPayment(ctx context.Context, acct Account, p TokenizedPayment) (*Transaction, error) {
	return c.tokenized(ctx, acct, "tokenizedPayment", p)
}

// TokenizedAuthorization authorizes a charge on a saved card (CreditAuth).
func (c *Client) TokenizedAuthorization(ctx context.Context, acct Account, p TokenizedPayment) (*Transaction, error) {
	return c.tokenized(ctx, acct, "tokenizedAuth", p)
}

func (c *Client) tokenized(ctx context.Context, acct Account, op string, p TokenizedPayment) (*Transaction, error) {
	var ck checker
	ck.ref(p.Ref, false)
	ck.uniqueTransID(p.UniqueTransID)
	ck.amount("amount", p.Amount, true)
	ck.amount("tipAmount", p.TipAmount, false)
	ck.amount("taxAmount", p.TaxAmount, false)
	ck.level2(p.Level2)
	d := refData(p.Ref, false)
	d.UniqueTransID, d.Amount, d.TipAmount, d.TaxAmount, d.Level2 = p.UniqueTransID, string(p.Amount), string(p.TipAmount), string(p.TaxAmount), p.Level2
	d.BillingName, d.BillingAddress, d.BillingPostalCode = p.Billing.Name, p.Billing.Address, p.Billing.PostalCode
	return c.write(ctx, acct, op, "transactions/"+op, p.Ref, wireBody{TransactionData: d}, ck.err)
}

// TokenizedRefund refunds part or all of an earlier payment, linked to it
// by its UniqueTransID (CreditReturn).
func (c *Client) TokenizedRefund(ctx context.Context, acct Account, r TokenizedRefund) (*Transaction, error) {
	var ck checker
	ck.ref(r.Ref, false)
	ck.uniqueTransID(r.UniqueTransID)
	ck.amount("amount", r.Amount, true)
	d := refData(r.Ref, false)
	d.UniqueTransID, d.Amount = r.UniqueTransID, string(r.Amount)
	return c.write(ctx, acct, "tokenizedRefund", "transactions/tokenizedRefund", r.Ref, wireBody{TransactionData: d}, ck.err)
}

// Adjust changes an unsettled sale's tip (SaleAdjust) or an
// authorization's amount and tip (AuthAdjust).
func (c *Client) Adjust(ctx context.Context, acct Account, a Adjustment) (*Transaction, error) {
	var ck checker
	ck.ref(a.Ref, false)
	ck.uniqueTransID(a.UniqueTransID)
	if a.Type != SaleAdjust && a.Type != AuthAdjust {
		ck.fail("adjustmentType", "must be SaleAdjust or AuthAdjust")
	}
	ck.amount("amount", a.Amount, false)
	ck.amount("tipAmount", a.TipAmount, false)
	d := refData(a.Ref, false)
	d.UniqueTransID, d.AdjustmentType, d.Amount, d.TipAmount = a.UniqueTransID, string(a.Type), string(a.Amount), string(a.TipAmount)
	return c.write(ctx, acct, "adjust", "transactions/adjust", a.Ref, wireBody{TransactionData: d}, ck.err)
}

// Force captures an authorization into the current batch (tokenizedForce,
// answered as CreditForce), for its amount or the one given.
func (c *Client) Force(ctx context.Context, acct Account, f Force) (*Transaction, error) {
	var ck checker
	ck.ref(f.Ref, false)
	ck.uniqueTransID(f.UniqueTransID)
	ck.amount("amount", f.Amount, false)
	ck.amount("tipAmount", f.TipAmount, false)
	ck.amount("taxAmount", f.TaxAmount, false)
	d := refData(f.Ref, false)
	d.UniqueTransID, d.Amount, d.TipAmount, d.TaxAmount = f.UniqueTransID, string(f.Amount), string(f.TipAmount), string(f.TaxAmount)
	return c.write(ctx, acct, "tokenizedForce", "transactions/tokenizedForce", f.Ref, wireBody{TransactionData: d}, ck.err)
}
