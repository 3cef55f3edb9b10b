package terminals_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/terminals"
)

// fixtures are the approved launches the cases act on.
type fixtures struct{ sale, other, card *terminals.Launch }

// launchCase is a launch request and what checking it must find: the
// message of each field at fault, or, when none is, the launch planned.
type launchCase struct {
	name   string
	req    func(f fixtures) terminals.LaunchRequest
	fields map[string]string // field → part of its message; nil: launched
	check  func(t *testing.T, l *terminals.Launch, f fixtures)
	// keepOpen leaves a launch on its device unanswered (the next case needs
	// it so); the others are followed to their result, freeing the device.
	keepOpen bool
}

// Every branch of checking a launch, kind by kind: what each kind needs
// (an original, an amount, a reason and linked sale, consent), where it runs
// (the form's device, or its sale's), and the references it carries.
func TestLaunchPlanBranches(t *testing.T) {
	e := newEnv(t)
	e.devices(t)
	f := fixtures{
		sale:  e.finished(t, e.launch(t, e.user, sale("50.00", "TAB-9", "TABLE-D210")).ID, 4*time.Second),
		other: e.finished(t, e.launch(t, e.user, sale("20.00", "TAB-10", "COUNTER-S300")).ID, 4*time.Second),
		card:  e.finished(t, e.launch(t, e.user, terminals.LaunchRequest{Kind: "save_card", Consent: true}).ID, 4*time.Second),
	}
	if f.sale.State != terminals.StateApproved || f.other.State != terminals.StateApproved || f.card.State != terminals.StateApproved {
		t.Fatalf("setup: sales %s %s, card %s", f.sale.State, f.other.State, f.card.State)
	}
	none := func(fixtures) terminals.LaunchRequest { return terminals.LaunchRequest{} }
	req := func(r terminals.LaunchRequest) func(fixtures) terminals.LaunchRequest {
		return func(fixtures) terminals.LaunchRequest { return r }
	}
	for _, tc := range []launchCase{
		{name: "no kind", req: none, fields: map[string]string{"kind": "Choose what to run"}},
		{name: "unknown kind", req: req(terminals.LaunchRequest{Kind: "refund", Amount: "1.00"}), fields: map[string]string{"kind": "Choose what to run"}},
		{name: "sale without amount on an unknown device", req: req(terminals.LaunchRequest{Kind: "sale", Device: "NOPE"}),
			fields: map[string]string{"amount": "Enter the amount.", "device": "Choose one of the location's terminals"}},
		{name: "sale at an unknown location", req: req(terminals.LaunchRequest{Kind: "sale", Amount: "1.00", LocationID: "AAA-BBB-CCC"}),
			fields: map[string]string{"device": "Choose one of the merchant's terminals."}},
		{name: "sale with a word for an amount", req: req(terminals.LaunchRequest{Kind: "sale", Amount: "ten"}),
			fields: map[string]string{"amount": "Enter an amount such as 12.50."}},
		{name: "sale of nothing", req: req(terminals.LaunchRequest{Kind: "sale", Amount: "0.00"}),
			fields: map[string]string{"amount": "Enter an amount from 0.01"}},
		{name: "sale with a long cashier and a broken invoice", req: req(terminals.LaunchRequest{Kind: "sale", Amount: "1.00",
			Cashier: strings.Repeat("c", 60), Invoice: "INV\n1"}),
			fields: map[string]string{"cashier": "Use at most", "invoice": "without line breaks"}},
		{name: "sale", req: req(terminals.LaunchRequest{Kind: "sale", Amount: "1.00", Device: "COUNTER-S300", Invoice: "INV-5"}),
			check: func(t *testing.T, l *terminals.Launch, _ fixtures) {
				if l.DeviceName != "COUNTER-S300" || l.InvoiceRef != "INV-5" || l.Cashier != "Ann Cashier" || l.OriginalID != nil {
					t.Errorf("sale: device %s invoice %q cashier %q original %v", l.DeviceName, l.InvoiceRef, l.Cashier, l.OriginalID)
				}
			}},
		{name: "sale without invoice gets one made up", req: req(terminals.LaunchRequest{Kind: "sale", Amount: "1.00", Cashier: "Bo"}),
			check: func(t *testing.T, l *terminals.Launch, _ fixtures) {
				if l.InvoiceRef != "T-"+strings.ToUpper(l.ID.String()[:8]) || l.Cashier != "Bo" {
					t.Errorf("invoice %q, cashier %q", l.InvoiceRef, l.Cashier)
				}
			}},
		{name: "return without reason nor linked sale", req: req(terminals.LaunchRequest{Kind: "return", Amount: "1.00", Linked: "not-an-id"}),
			fields: map[string]string{"reason": "Say why the money goes back", "linked": "Choose the sale from the list"}},
		{name: "return with a long reason", req: req(terminals.LaunchRequest{Kind: "return", Amount: "1.00", Reason: strings.Repeat("r", 501)}),
			fields: map[string]string{"reason": "Use at most"}},
		{name: "return", req: req(terminals.LaunchRequest{Kind: "return", Amount: "2.00", Reason: "Damaged"}),
			check: func(t *testing.T, l *terminals.Launch, _ fixtures) {
				if l.Reason != "Damaged" || l.LinkedLedgerID != nil || l.Amount() != 200 {
					t.Errorf("return: reason %q linked %v amount %d", l.Reason, l.LinkedLedgerID, l.Amount())
				}
			}},
		{name: "save card without consent", req: req(terminals.LaunchRequest{Kind: "save_card"}),
			fields: map[string]string{"consent": "Tick the box"}},
		{name: "void without original", req: req(terminals.LaunchRequest{Kind: "void"}),
			fields: map[string]string{"original": "Choose the transaction to void."}},
		{name: "tip without original", req: req(terminals.LaunchRequest{Kind: "tip", Amount: "55.00"}),
			fields: map[string]string{"original": "Choose the sale to add the tip to."}},
		{name: "token sale without card", req: req(terminals.LaunchRequest{Kind: "token_sale", Amount: "3.00"}),
			fields: map[string]string{"original": "Choose a saved card."}},
		{name: "void of a stranger", req: req(terminals.LaunchRequest{Kind: "void", Original: uuid.NewString()}),
			fields: map[string]string{"original": "not one of this merchant's"}},
		{name: "token sale on a sale", req: func(f fixtures) terminals.LaunchRequest {
			return terminals.LaunchRequest{Kind: "token_sale", Amount: "3.00", Original: f.sale.ID.String()}
		}, fields: map[string]string{"original": "Choose a saved card."}},
		{name: "tip below the sale", req: func(f fixtures) terminals.LaunchRequest {
			return terminals.LaunchRequest{Kind: "tip", Amount: "40.00", Original: f.sale.ID.String()}
		}, fields: map[string]string{"amount": "cannot be below the sale amount of $50.00"}},
		{name: "large tip unconfirmed", req: func(f fixtures) terminals.LaunchRequest {
			return terminals.LaunchRequest{Kind: "tip", Amount: "61.00", Original: f.sale.ID.String()}
		}, fields: map[string]string{"confirm_tip": "tick the box to confirm it"}},
		{name: "token sale", req: func(f fixtures) terminals.LaunchRequest {
			return terminals.LaunchRequest{Kind: "token_sale", Amount: "3.00", Original: f.card.ID.String(), Device: "COUNTER-S300", Invoice: "INV-T"}
		}, check: func(t *testing.T, l *terminals.Launch, _ fixtures) {
			if l.DeviceName != "COUNTER-S300" || l.OriginalID == nil || l.InvoiceRef != "INV-T" {
				t.Errorf("token sale: device %s original %v invoice %q", l.DeviceName, l.OriginalID, l.InvoiceRef)
			}
		}},
		// Last: these act on the sales (a tip and a void take the sale's
		// location and device, whatever the form names).
		{name: "void naming another location runs at the sale's", req: func(f fixtures) terminals.LaunchRequest {
			return terminals.LaunchRequest{Kind: "void", Original: f.other.ID.String(), LocationID: "AAA-BBB-CCC", Device: "EMULATOR"}
		}, check: func(t *testing.T, l *terminals.Launch, f fixtures) {
			if l.LocationID != f.other.LocationID || l.DeviceName != f.other.DeviceName || l.InvoiceRef != "TAB-10" {
				t.Errorf("void: on %s/%s with %q", l.LocationID, l.DeviceName, l.InvoiceRef)
			}
		}},
		{name: "void of a voided sale", req: func(f fixtures) terminals.LaunchRequest {
			return terminals.LaunchRequest{Kind: "void", Original: f.other.ID.String()}
		}, fields: map[string]string{"original": "This transaction was voided already."}},
		{name: "tip runs on the sale's device", req: func(f fixtures) terminals.LaunchRequest {
			return terminals.LaunchRequest{Kind: "tip", Amount: "55.00", Original: f.sale.ID.String(), Device: "COUNTER-S300", Invoice: "OTHER"}
		}, check: func(t *testing.T, l *terminals.Launch, f fixtures) {
			if l.DeviceName != f.sale.DeviceName || l.LocationID != f.sale.LocationID || l.InvoiceRef != "TAB-9" || l.TransactionRef != f.sale.TransactionRef || l.BaseCents == nil {
				t.Errorf("tip: on %s/%s with %q %q, base %v", l.LocationID, l.DeviceName, l.InvoiceRef, l.TransactionRef, l.BaseCents)
			}
		}},
		{name: "void without device runs on the sale's device", req: func(f fixtures) terminals.LaunchRequest {
			return terminals.LaunchRequest{Kind: "void", Original: f.sale.ID.String(), Device: " "}
		}, check: func(t *testing.T, l *terminals.Launch, f fixtures) {
			if l.DeviceName != f.sale.DeviceName || l.InvoiceRef != "TAB-9" || l.AmountCents != nil {
				t.Errorf("void: on %s with %q, amount %v", l.DeviceName, l.InvoiceRef, l.AmountCents)
			}
		}, keepOpen: true},
		{name: "a second void", req: func(f fixtures) terminals.LaunchRequest {
			return terminals.LaunchRequest{Kind: "void", Original: f.sale.ID.String()}
		}, fields: map[string]string{"original": "A void of this transaction is under way."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.req(f)
			if r.Kind == "" && tc.name != "no kind" {
				t.Fatal("case without a kind")
			}
			l, err := e.try(e.user, r)
			fields, invalid := apperr.FieldsOf(err)
			switch {
			case tc.fields == nil && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.fields == nil:
				tc.check(t, l, f)
				if !tc.keepOpen {
					e.finished(t, l.ID, 4*time.Second)
				}
				return
			case !invalid:
				t.Fatalf("err = %v, want field messages", err)
			}
			if len(fields) != len(tc.fields) {
				t.Errorf("fields %v, want %v", fields, tc.fields)
			}
			for f, want := range tc.fields {
				if !strings.Contains(fields[f], want) {
					t.Errorf("%s: %q, want %q", f, fields[f], want)
				}
			}
		})
	}
}

// The table of plan, row by row: each kind asks for what its row says and
// runs where its row says. A request carrying nothing but the kind is
// refused at exactly the fields the row needs.
func TestLaunchRulesRowByRow(t *testing.T) {
	e := newEnv(t)
	e.devices(t)
	rules := terminals.LaunchRules()
	if len(rules) != len(terminals.Kinds) {
		t.Fatalf("%d rows for %d kinds", len(rules), len(terminals.Kinds))
	}
	sale := &terminals.Launch{LocationID: "LOC-SALE", DeviceName: "SALE-DEVICE"}
	for _, kind := range terminals.Kinds {
		row, ok := rules[kind]
		t.Run(string(kind), func(t *testing.T) {
			if !ok {
				t.Fatal("no row")
			}
			want := map[string]bool{"original": row.Original, "amount": row.Amount, "reason": row.Reason, "consent": row.Consent}
			_, err := e.try(e.user, terminals.LaunchRequest{Kind: string(kind), Device: "COUNTER-S300"})
			fields, _ := apperr.FieldsOf(err)
			for f, needed := range want {
				if _, got := fields[f]; got != needed {
					t.Errorf("%s: refused %v, row says needed %v (%v)", f, got, needed, fields)
				}
			}
			if row.Amount != kind.HasAmount() || row.Original != kind.NeedsOriginal() {
				t.Errorf("Kind's methods disagree with the row")
			}
			// Where it runs: the form's device, or the sale's.
			type where struct{ loc, dev string }
			cases := map[string][3]where{ // form at the sale's location / elsewhere / with no device
				"chosen":          {{"LOC-SALE", "MINE"}, {"LOC-OTHER", "MINE"}, {"LOC-SALE", ""}},
				"sale's device":   {{"LOC-SALE", "SALE-DEVICE"}, {"LOC-SALE", "SALE-DEVICE"}, {"LOC-SALE", "SALE-DEVICE"}},
				"sale's location": {{"LOC-SALE", "MINE"}, {"LOC-SALE", "SALE-DEVICE"}, {"LOC-SALE", "SALE-DEVICE"}},
			}
			forms := [3]where{{"LOC-SALE", "MINE"}, {"LOC-OTHER", "MINE"}, {"LOC-SALE", ""}}
			for i, f := range forms {
				loc, dev := terminals.RunsOn(kind, f.loc, f.dev, sale)
				if got := (where{loc, dev}); got != cases[row.Runs][i] {
					t.Errorf("form %v: runs on %v, row %q says %v", f, got, row.Runs, cases[row.Runs][i])
				}
				if loc, dev := terminals.RunsOn(kind, f.loc, f.dev, nil); loc != f.loc || dev != f.dev {
					t.Errorf("without a sale, form %v runs on %s/%s", f, loc, dev)
				}
			}
			if (row.Refs == "sale's") != (kind == terminals.KindVoid || kind == terminals.KindTip) {
				t.Errorf("references from %s", row.Refs)
			}
		})
	}
}
