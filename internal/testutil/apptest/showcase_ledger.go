package apptest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/payments"
)

// Long names, as real merchants and cardholders have them: the pictures
// must show what a 60-character legal name does to a page.
const (
	ShowcaseLegalName = "Corner Bakery and Neighborhood Café Holdings of Portland LLC" // 60 characters
	ShowcaseDBA       = "Corner Bakery & Café on Southeast Hawthorne Boulevard"
	longCardholder    = "Bartholomew Montgomery-Fitzgerald Worthington III"
	longCardholder2   = "Alexandria Konstantinopoulou-Vanderbilt"
)

// ledgerLine is one transaction of the showcase's ledger, with what became
// of it: the processor's answer, and an operation or refund on it.
type ledgerLine struct {
	tx     payments.NewTransaction
	answer *payments.Answer
	// child is a capture, void or refund of the line, approved.
	child       payments.Kind
	childAmount int64
}

// ledgerVariety records a transaction in every status the ledger shows
// (and every source), as the rooms that take them record them, so the
// ledger and its badges are pictured with real variety. They are written
// straight to the ledger: the sandbox cannot be asked for an outcome that
// stays unknown.
func (s *Showcase) ledgerVariety(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	member, err := s.Env.App.Auth.Users().ByEmail(ctx, s.Member.Email)
	if err != nil {
		t.Fatal(err)
	}
	l := s.Env.App.Payments.Ledger()
	visa := payments.Card{Brand: "Visa", First6: "411111", Last4: "1111"}
	mc := payments.Card{Brand: "Mastercard", First6: "555555", Last4: "4444"}
	amex := payments.Card{Brand: "American Express", First6: "378282", Last4: "0005"}
	approved := func(cents int64) *payments.Answer {
		return &payments.Answer{Status: payments.StatusApproved, ApprovedCents: &cents, ApprovalCode: "SHOW01",
			Event: payments.Event{Kind: payments.EventApproved, Message: "Approved"}}
	}
	checkUntil := s.Env.Clock.Now().AddDate(0, 1, 0)
	partly, rest := int64(3000), int64(1500)
	lines := []ledgerLine{
		{tx: s.line(payments.KindAuthorization, 12000, mc, longCardholder, "INV-1003"), answer: approved(12000)},
		{tx: s.line(payments.KindAuthorization, 8950, visa, longCardholder2, "INV-1004"), answer: approved(8950), child: payments.KindCapture, childAmount: 8950},
		{tx: s.line(payments.KindSale, 200000, payments.Card{Brand: "Visa", First6: "400000", Last4: "0002"}, "Pat Cardholder", "INV-1005"),
			answer: &payments.Answer{Status: payments.StatusDeclined, ResultMessage: "Declined", Event: payments.Event{Kind: "declined", Message: "Declined"}}},
		{tx: s.line(payments.KindSale, 4500, payments.Card{Brand: "Visa", First6: "400000", Last4: "0051"}, longCardholder, "INV-1006"),
			answer: &payments.Answer{Status: payments.StatusPartial, ApprovedCents: &partly, BalanceCents: &rest, Event: payments.Event{Kind: payments.EventApproved, Message: "Partly approved"}}},
		{tx: s.line(payments.KindSale, 2275, visa, "Lee Cardholder", "INV-1007"), answer: approved(2275), child: payments.KindVoid, childAmount: 2275},
		{tx: s.line(payments.KindSale, 5400, amex, longCardholder2, "INV-1008"), answer: approved(5400), child: payments.KindRefund, childAmount: 5400},
		{tx: s.line(payments.KindSale, 9800, mc, longCardholder, "INV-1009"), answer: approved(9800), child: payments.KindRefund, childAmount: 2000},
		{tx: s.line(payments.KindSale, 1500, visa, "Pat Cardholder", "INV-1010")},
		{tx: s.line(payments.KindSale, 3000, visa, "Pat Cardholder", "INV-1011"),
			answer: &payments.Answer{Status: payments.StatusChecking, CheckUntil: &checkUntil, Event: payments.Event{Kind: "unknown", Message: "No answer from the processor"}}},
		{tx: s.line(payments.KindSale, 1999, visa, "Lee Cardholder", "INV-1012"),
			answer: &payments.Answer{Status: payments.StatusFailed, ResultMessage: "The processor could not be reached.", Event: payments.Event{Kind: "failed", Message: "Not sent"}}},
		{tx: s.line(payments.KindSale, 4100, mc, "Lee Cardholder", "INV-1013"),
			answer: &payments.Answer{Status: payments.StatusNotCharged, Event: payments.Event{Kind: "not_charged", Message: "Not charged"}}},
		{tx: s.terminalLine(2650, "COUNTER-S300", "INV-1014"),
			answer: &payments.Answer{Status: payments.StatusCancelled, Event: payments.Event{Kind: "cancelled_at_terminal", Message: "Cancelled at the terminal"}}},
		{tx: s.terminalLine(3475, "TABLE-D210", "INV-1015"), answer: &payments.Answer{Status: payments.StatusApproved, ApprovedCents: &[]int64{3475}[0],
			Card: visa, Event: payments.Event{Kind: payments.EventApproved, Message: "Approved"}}},
		{tx: payments.NewTransaction{Source: payments.SourceACH, Kind: payments.KindSale, AmountCents: 125000, Reference: "INV-1016",
			Card: payments.Card{Brand: "Checking account", Last4: "6789", AccountType: "Checking"}, Billing: payments.Billing{Name: longCardholder}}, answer: approved(125000)},
		{tx: payments.NewTransaction{Source: payments.SourceCard, Kind: payments.KindSaveMethod, Card: amex, Billing: payments.Billing{Name: longCardholder2}},
			answer: &payments.Answer{Status: payments.StatusApproved, Event: payments.Event{Kind: payments.EventApproved, Message: "Saved with the processor"}}},
	}
	for _, line := range lines {
		s.Env.Clock.Advance(time.Minute)
		line.tx.MerchantID, line.tx.CreatedBy = s.Merchant, &member.ID
		if err := l.InTx(ctx, func(tx pgx.Tx) error { return s.recordLine(ctx, tx, l, line) }); err != nil {
			t.Fatalf("showcase ledger %s %s: %v", line.tx.Kind, line.tx.Reference, err)
		}
	}
}

// line is a keyed card transaction of the virtual terminal.
func (s *Showcase) line(kind payments.Kind, cents int64, card payments.Card, name, reference string) payments.NewTransaction {
	return payments.NewTransaction{Source: payments.SourceCard, Kind: kind, AmountCents: cents, Card: card, Reference: reference,
		Billing: payments.Billing{Name: name, PostalCode: "97214"}}
}

// terminalLine is a sale launched on one of the location's terminals.
func (s *Showcase) terminalLine(cents int64, device, reference string) payments.NewTransaction {
	return payments.NewTransaction{Source: payments.SourceTerminal, Kind: payments.KindSale, AmountCents: cents, Reference: reference,
		LocationID: s.Location, DeviceName: device}
}

func (s *Showcase) recordLine(ctx context.Context, tx pgx.Tx, l *payments.Ledger, line ledgerLine) error {
	t, err := l.Record(ctx, tx, line.tx)
	if err != nil || line.answer == nil {
		return err
	}
	a := *line.answer
	if a.Status.Succeeded() {
		a.UniqueTransID = "SHOW-" + t.ID.String()[:8] // what the processor would have answered
	}
	if _, err := l.Answer(ctx, tx, t.ID, a); err != nil || line.child == "" {
		return err
	}
	child := payments.NewTransaction{MerchantID: t.MerchantID, Source: t.Source, Kind: line.child, ParentID: &t.ID,
		AmountCents: line.childAmount, Card: line.tx.Card, CreatedBy: line.tx.CreatedBy}
	var c *payments.Transaction
	if line.child == payments.KindRefund {
		c, err = l.RecordRefund(ctx, tx, child)
	} else {
		c, err = l.Record(ctx, tx, child)
	}
	if err != nil {
		return err
	}
	cents := line.childAmount
	_, err = l.Answer(ctx, tx, c.ID, payments.Answer{Status: payments.StatusApproved, ApprovedCents: &cents,
		UniqueTransID: "SHOW-" + c.ID.String()[:8], Event: payments.Event{Kind: payments.EventApproved, Message: "Approved"}})
	return err
}
