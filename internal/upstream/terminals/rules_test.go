package terminals_test

import (
	"testing"

	"github.com/payportal/portal/internal/upstream/terminals"
)

// refused checks that r is a refusal with a message holding want.
func refused(t *testing.T, r *terminals.Result, want string) {
	t.Helper()
	if r.ResultStatus || r.ResultMessage != want || r.AmountProcessed != 0 {
		t.Errorf("result %v %q processed %v, want refused with %q", r.ResultStatus, r.ResultMessage, r.AmountProcessed, want)
	}
}

func TestTips(t *testing.T) {
	e := newEnv(t, nil)
	sale := e.run(t, "COUNTER-S300", terminals.Sale(2000, "INV-5.1", "Ann"))
	tip := e.run(t, "COUNTER-S300", terminals.AddTip(sale.UniqueTransID, 2400, "INV-5.1", "Ann"))
	if !tip.ResultStatus || tip.AmountProcessed != 2400 || tip.AmountTipped != 400 || tip.AmountAdjusted != 400 ||
		tip.AdjustmentTypeID != 1 || tip.ApprovalNumberResult != sale.ApprovalNumberResult || tip.TransactionType != "CreditAddTip" {
		t.Errorf("tip = %+v", tip)
	}
	if tip.EMVReceipt != nil || tip.MaskedAccount != sale.MaskedAccount {
		t.Errorf("tip card: %q receipt %+v", tip.MaskedAccount, tip.EMVReceipt)
	}
	// The same total again changes nothing.
	again := e.run(t, "COUNTER-S300", terminals.AddTip(sale.UniqueTransID, 2400, "INV-5.1", "Ann"))
	if !again.ResultStatus || again.AmountProcessed != 2400 || again.AmountTipped != 400 || again.AmountAdjusted != 0 {
		t.Errorf("same total again = %+v", again)
	}
	if c := e.transaction(t, sale.UniqueTransID).Charge; c.Total != "24.00" || c.Tip != "4.00" {
		t.Errorf("charge after two tips of the same total = %+v", c)
	}
	// Against an earlier tip, on another device, below the sale: refused.
	refused(t, e.run(t, "COUNTER-S300", terminals.AddTip(tip.UniqueTransID, 2600, "", "")), "TIP MUST REFERENCE THE ORIGINAL SALE")
	refused(t, e.run(t, "TABLE-D210", terminals.AddTip(sale.UniqueTransID, 2600, "", "")), "ORIGINAL SALE RAN ON DEVICE COUNTER-S300")
	refused(t, e.run(t, "COUNTER-S300", terminals.AddTip(sale.UniqueTransID, 1999, "", "")), "TIP TOTAL BELOW SALE AMOUNT")
	refused(t, e.run(t, "COUNTER-S300", terminals.AddTip("ffffffffffffffffffffffffffffffff", 2600, "", "")), "ORIGINAL TRANSACTION NOT FOUND")
	ret := e.run(t, "COUNTER-S300", terminals.Return(500, "R-1", ""))
	refused(t, e.run(t, "COUNTER-S300", terminals.AddTip(ret.UniqueTransID, 600, "", "")), "TIP ONLY ON AN APPROVED SALE")

	// A new total replaces the old one: the tip is the total less the sale.
	second := e.run(t, "COUNTER-S300", terminals.AddTip(sale.UniqueTransID, 2500, "INV-5.1", "Ann"))
	if second.AmountProcessed != 2500 || second.AmountTipped != 500 || second.AmountAdjusted != 100 {
		t.Errorf("second tip = %+v", second)
	}
	// The void takes back the whole total; no tip after it.
	void := e.run(t, "TABLE-D210", terminals.VoidOf(sale.UniqueTransID, "INV-5.1", ""))
	if !void.ResultStatus || void.AmountProcessed != 2500 {
		t.Errorf("void = %+v", void)
	}
	refused(t, e.run(t, "COUNTER-S300", terminals.AddTip(sale.UniqueTransID, 2600, "", "")), "ORIGINAL SALE VOIDED")
}

func TestDuplicateDetection(t *testing.T) {
	e := newEnv(t, nil)
	first := e.run(t, "EMULATOR", terminals.Sale(1000, "INV-9.1", "Ann"))
	dup := e.run(t, "EMULATOR", terminals.Sale(1000, "INV-9.1", "Ann"))
	if !dup.Duplicate() || !dup.FromLogFile || dup.ApprovalNumberResult != first.ApprovalNumberResult ||
		dup.TransactionID != first.TransactionID || dup.UniqueTransID == first.UniqueTransID || dup.Outcome() != terminals.OutcomeApproved {
		t.Errorf("duplicate = %+v, first = %+v", dup, first)
	}
	if e.transaction(t, dup.UniqueTransID).Charge != nil {
		t.Error("the duplicate charged the card")
	}
	if c := e.transaction(t, first.UniqueTransID).Charge; c == nil || c.Total != "10.00" {
		t.Errorf("first charge = %+v", c)
	}
	// A third repeat still answers with the first approval.
	if third := e.run(t, "EMULATOR", terminals.Sale(1000, "INV-9.1", "Ann")); third.ApprovalNumberResult != first.ApprovalNumberResult || !third.Duplicate() {
		t.Errorf("third = %+v", third)
	}
	// The next payment of the invoice (counter .2) is charged.
	if next := e.run(t, "EMULATOR", terminals.Sale(1000, "INV-9.2", "Ann")); next.Duplicate() || next.ApprovalNumberResult == first.ApprovalNumberResult {
		t.Errorf("next payment = %+v", next)
	}
	// Another card with the same reference and amount is a new payment.
	e.setDevice(t, "EMULATOR", map[string]any{"nextCard": "mastercard"})
	if other := e.run(t, "EMULATOR", terminals.Sale(1000, "INV-9.2", "Ann")); other.Duplicate() || other.MaskedAccount != "************4444" {
		t.Errorf("other card = %+v", other)
	}
	// A void by the duplicate's id voids the original charge.
	e.run(t, "COUNTER-S300", terminals.VoidOf(dup.UniqueTransID, "INV-9.1", ""))
	if c := e.transaction(t, first.UniqueTransID).Charge; c.VoidedBy == "" {
		t.Error("void by the duplicate's id left the original charged")
	}

	// Switched off by the admin: the same request charges again.
	e.run(t, "TABLE-D210", terminals.Sale(700, "INV-10.1", ""))
	e.setDevice(t, "TABLE-D210", map[string]any{"duplicateDetection": false})
	if r := e.run(t, "TABLE-D210", terminals.Sale(700, "INV-10.1", "")); r.Duplicate() || e.transaction(t, r.UniqueTransID).Charge == nil {
		t.Errorf("with detection off = %+v", r)
	}
}

func TestVoids(t *testing.T) {
	e := newEnv(t, nil)
	sale := e.run(t, "EMULATOR", terminals.Sale(3000, "V-1", ""))
	void := e.run(t, "EMULATOR", terminals.VoidOf(sale.UniqueTransID, "V-1", "Bob"))
	if !void.ResultStatus || void.TransactionType != "Void" || void.AmountProcessed != 3000 || void.MaskedAccount != sale.MaskedAccount {
		t.Errorf("void = %+v", void)
	}
	refused(t, e.run(t, "EMULATOR", terminals.VoidOf(sale.UniqueTransID, "V-1", "")), "TRANSACTION ALREADY VOIDED")
	ret := e.run(t, "COUNTER-S300", terminals.Return(1500, "V-2", ""))
	if v := e.run(t, "COUNTER-S300", terminals.VoidOf(ret.UniqueTransID, "V-2", "")); !v.ResultStatus || v.AmountProcessed != 1500 {
		t.Errorf("void of a return = %+v", v)
	}
	declined := e.run(t, "EMULATOR", terminals.Sale(1051, "V-3", ""))
	refused(t, e.run(t, "EMULATOR", terminals.VoidOf(declined.UniqueTransID, "", "")), "TRANSACTION CANNOT BE VOIDED")
	refused(t, e.run(t, "EMULATOR", terminals.VoidOf("0123456789", "", "")), "ORIGINAL TRANSACTION NOT FOUND")
	// Another location of the same merchant cannot void it.
	other := e.newLocation(t, map[string]any{"name": "Annex", "applicationId": "app-1"})
	sale2 := e.run(t, "EMULATOR", terminals.Sale(3100, "V-4", ""))
	r, err := e.await(other, e.launch(t, other, "EMULATOR", terminals.VoidOf(sale2.UniqueTransID, "", "")))
	if err != nil {
		t.Fatal(err)
	}
	refused(t, r, "ORIGINAL TRANSACTION NOT FOUND")
}

func TestSavedCards(t *testing.T) {
	e := newEnv(t, nil)
	e.setDevice(t, "TABLE-D210", map[string]any{"nextCard": "amex"})
	saved := e.run(t, "TABLE-D210", terminals.SaveCard("CUST-1", ""))
	if !saved.ResultStatus || saved.TransactionType != "CreditSaveCard" || saved.AmountProcessed != 0 || saved.MaskedAccount != "***********0005" {
		t.Errorf("save card = %+v", saved)
	}
	if e.transaction(t, saved.UniqueTransID).Charge != nil {
		t.Error("save card charged")
	}
	// The token works on any device and location of the merchant.
	annex := e.newLocation(t, map[string]any{"name": "Annex", "applicationId": "app-1"})
	r, err := e.await(annex, e.launch(t, annex, "EMULATOR", terminals.TokenSale(saved.UniqueTransID, 1575, "INV-20.1", "")))
	if err != nil {
		t.Fatal(err)
	}
	if !r.ResultStatus || r.AmountProcessed != 1575 || r.MaskedAccount != "***********0005" || r.AccountEntryMethod != "Token" || r.EMVReceipt != nil {
		t.Errorf("token sale = %+v", r)
	}
	// A sale's id is a token too; the decline amount applies.
	sale := e.run(t, "EMULATOR", terminals.Sale(900, "INV-21.1", ""))
	if r := e.run(t, "COUNTER-S300", terminals.TokenSale(sale.UniqueTransID, 950, "INV-22.1", "")); !r.ResultStatus || r.MaskedAccount != sale.MaskedAccount {
		t.Errorf("token sale from a sale = %+v", r)
	}
	refused(t, e.run(t, "COUNTER-S300", terminals.TokenSale(saved.UniqueTransID, 1051, "", "")), "DECLINED")
	refused(t, e.run(t, "COUNTER-S300", terminals.TokenSale("ffffffffffffffffffffffffffffffff", 100, "", "")), "TOKEN NOT FOUND")
	cancelled := e.run(t, "EMULATOR", terminals.Sale(1052, "", ""))
	refused(t, e.run(t, "COUNTER-S300", terminals.TokenSale(cancelled.UniqueTransID, 100, "", "")), "TOKEN NOT USABLE")
	// Another merchant cannot use it.
	stranger := e.newLocation(t, map[string]any{"name": "Stranger"})
	r, err = e.await(stranger, e.launch(t, stranger, "EMULATOR", terminals.TokenSale(saved.UniqueTransID, 100, "", "")))
	if err != nil {
		t.Fatal(err)
	}
	refused(t, r, "TOKEN NOT FOUND")
}
