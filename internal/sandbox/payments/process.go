package payments

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
	bolt "go.etcd.io/bbolt"
)

// proc carries out one operation inside a store transaction.
type proc struct {
	a    *Area
	tx   *bolt.Tx
	now  time.Time
	q    *request
	acct *Account
}

// run dispatches to the operation.
func (p *proc) run() (*Transaction, error) {
	switch p.q.op.name {
	case "sale":
		return p.cardPayment(typeSale)
	case "authorization":
		return p.cardPayment(typeAuth)
	case "refund":
		return p.cardRefund()
	case "tokenize":
		return p.tokenize()
	case "ach/sale":
		return p.achPayment(typeACHSale)
	case "ach/refund":
		return p.achPayment(typeACHReturn)
	case "ach/tokenize":
		return p.achTokenize()
	case "tokenizedPayment":
		return p.tokenizedPayment(typeSale)
	case "tokenizedAuth":
		return p.tokenizedPayment(typeAuth)
	case "tokenizedRefund":
		return p.tokenizedRefund()
	case "void":
		return p.void()
	case "adjust":
		return p.adjust()
	case "tokenizedForce":
		return p.force()
	}
	return nil, kit.NewError(http.StatusNotFound, "no such operation")
}

// field is the path of a field of this request, for messages.
func (p *proc) field(name string) string { return p.q.op.wrapper + "." + name }

// newTxn starts a transaction of type typ on vault entry v, with the
// answer's fields that do not depend on the outcome.
func (p *proc) newTxn(typ string, v *vaultEntry) *Transaction {
	q := p.q
	t := &Transaction{OID: p.acct.OID, UniqueTransID: newUniqueTransID(), ExternalID: q.str("externalTransactionId"),
		Op: q.op.name, Type: typ, CreatedAt: p.now.UTC()}
	a := &t.Answer
	*a = answer{ExternalTransactionID: t.ExternalID, TransactionType: typ, ResultStatus: "false",
		UniqueTransID: t.UniqueTransID, TransactionReference: q.str("transactionReference"),
		Amount: "0.00", AmountBalance: "0.00", AmountProcessed: "0.00", AmountTaxed: "0.00", AmountTipped: "0.00",
		BillingName: q.str("billingName"), AccountEntryMethod: "Keyed", BatchNumber: strconv.Itoa(p.acct.Batch),
		Cashier: q.str("cashierId"), IsPartialApproval: "false", Level2: q.level2}
	if v != nil {
		t.VaultToken = v.Token
		a.MaskedAccount, a.AccountCardType = v.masked(), v.cardTypeCode()
		if v.Kind == "card" {
			a.AccountExpiryDate = strings.ReplaceAll(v.Expiry, "-", "")
		} else if a.BillingName == "" {
			a.BillingName = v.HolderName
		}
	}
	return t
}

// approve records an approval of amount (before tip) and tip, of which
// processed was approved; money-moving types go into the open batch.
func (p *proc) approve(t *Transaction, amount, tip, tax, processed int64) {
	t.Approved = true
	t.AmountCents, t.TipCents, t.TaxCents, t.ProcessedCents = amount, tip, tax, processed
	a := &t.Answer
	a.ResultStatus, a.ResultMessage, a.ApprovalNumberResult = "true", "Approved", newApprovalNumber()
	a.Amount, a.AmountTipped, a.AmountTaxed, a.AmountProcessed = money(amount), money(tip), money(tax), money(processed)
	a.AmountBalance = money(amount + tip - processed)
	if processed < amount+tip {
		a.IsPartialApproval = "true"
	}
	switch t.Type {
	case typeSale, typeForce, typeReturn, typeACHSale, typeACHReturn:
		t.Batch = p.acct.Batch
	}
}

// decline records a decline with its reason.
func (p *proc) decline(t *Transaction, amount, tip, tax int64, reason string) {
	t.AmountCents, t.TipCents, t.TaxCents = amount, tip, tax
	a := &t.Answer
	a.ResultStatus, a.ResultMessage, a.ApprovalNumberResult = "false", reason, ""
	a.Amount, a.AmountTipped, a.AmountTaxed, a.AmountBalance = money(amount), money(tip), money(tax), money(amount+tip)
}

// verify sets the AVS and CVV results from what was sent and the card's
// behaviour. It reports a CVV mismatch.
func (p *proc) verify(t *Transaction, b behavior) (cvvFailed bool) {
	a := &t.Answer
	zip, addr := p.q.str("billingPostalCode") != "", p.q.str("billingAddress") != ""
	switch {
	case (zip || addr) && b == avsMismatch:
		a.AVSResponseCode, a.AVSResponseText = "N", "Neither street address nor ZIP code match"
	case zip && addr:
		a.AVSResponseCode, a.AVSResponseText = "Y", "Street address and 5-digit ZIP code match"
	case zip:
		a.AVSResponseCode, a.AVSResponseText = "Z", "5-digit ZIP code matches; street address not sent"
	case addr:
		a.AVSResponseCode, a.AVSResponseText = "A", "Street address matches; ZIP code not sent"
	}
	if p.q.str("cardSecurityCode") != "" {
		if b == cvvMismatch {
			a.CVVResponseCode, a.CVVResponseText = "N", "No match"
			return true
		}
		a.CVVResponseCode, a.CVVResponseText = "M", "Match"
	}
	return false
}

// outcome is what the card's behaviour, overridden by a test amount on a
// card that would be approved, makes of a payment.
func outcome(v *vaultEntry, amount int64) behavior {
	if tb, ok := amountTriggers[amount]; ok && v.Behavior == approve {
		return tb
	}
	return v.Behavior
}

// charge decides a sale or authorization on card v.
func (p *proc) charge(t *Transaction, v *vaultEntry) {
	q := p.q
	amount, tip, tax := q.amount, q.tip, q.tax
	b := outcome(v, amount)
	cvvFailed := p.verify(t, b)
	switch {
	case expiredAt(v.Expiry, p.now):
		p.decline(t, amount, tip, tax, "Expired Card")
	case b == decline:
		p.decline(t, amount, tip, tax, "Declined")
	case b == insufficient:
		p.decline(t, amount, tip, tax, "Insufficient Funds")
	case cvvFailed:
		p.decline(t, amount, tip, tax, "CVV2 Mismatch")
	case b == partial:
		p.approve(t, amount, tip, tax, max((amount+tip)/2, 1))
	default:
		p.approve(t, amount, tip, tax, amount+tip)
	}
}

// cardPayment is a keyed sale or authorization.
func (p *proc) cardPayment(typ string) (*Transaction, error) {
	v, err := p.a.vaultCard(p.tx, p.acct.OID, p.q)
	if err != nil {
		return nil, err
	}
	t := p.newTxn(typ, v)
	p.charge(t, v)
	return t, nil
}

// cardRefund is an unlinked credit to the keyed card.
func (p *proc) cardRefund() (*Transaction, error) {
	v, err := p.a.vaultCard(p.tx, p.acct.OID, p.q)
	if err != nil {
		return nil, err
	}
	t := p.newTxn(typeReturn, v)
	p.verify(t, approve)
	if expiredAt(v.Expiry, p.now) {
		p.decline(t, p.q.amount, 0, 0, "Expired Card")
		return t, nil
	}
	p.approve(t, p.q.amount, 0, 0, p.q.amount)
	return t, p.review(t, v, nil)
}

// tokenize saves a keyed card after a zero-amount verification.
func (p *proc) tokenize() (*Transaction, error) {
	v, err := p.a.vaultCard(p.tx, p.acct.OID, p.q)
	if err != nil {
		return nil, err
	}
	t := p.newTxn(typeSaveCard, v)
	cvvFailed := p.verify(t, v.Behavior)
	switch {
	case expiredAt(v.Expiry, p.now):
		p.decline(t, 0, 0, 0, "Expired Card")
	case v.Behavior == decline:
		p.decline(t, 0, 0, 0, "Declined")
	case cvvFailed:
		p.decline(t, 0, 0, 0, "CVV2 Mismatch")
	default:
		p.approve(t, 0, 0, 0, 0)
	}
	return t, nil
}

// achPayment is an ACH sale (debit) or refund (credit).
func (p *proc) achPayment(typ string) (*Transaction, error) {
	v, err := p.a.vaultBank(p.tx, p.acct.OID, p.q)
	if err != nil {
		return nil, err
	}
	t := p.newTxn(typ, v)
	p.approve(t, p.q.amount, 0, 0, p.q.amount)
	if typ == typeACHSale {
		t.ReturnCode = returnCodeOf(v.Behavior)
	}
	return t, nil
}

// returnCodeOf is the ACH return a test account's behaviour schedules.
func returnCodeOf(b behavior) string {
	switch b {
	case achReturnR01:
		return "R01"
	case achReturnR29:
		return "R29"
	}
	return ""
}

// achTokenize saves a bank account.
func (p *proc) achTokenize() (*Transaction, error) {
	v, err := p.a.vaultBank(p.tx, p.acct.OID, p.q)
	if err != nil {
		return nil, err
	}
	t := p.newTxn(typeACHSave, v)
	p.approve(t, 0, 0, 0, 0)
	return t, nil
}
