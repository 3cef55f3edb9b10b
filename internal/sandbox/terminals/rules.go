package terminals

import (
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// Adjustment types of AdjustmentTypeId.
const (
	adjustmentNone = 0
	adjustmentTip  = 1
)

// run makes the emulated device process in: it decides the outcome now,
// and the result becomes readable at ReadyAt, when the emulated cardholder
// (or the host, for a transaction without a card) has finished. Changes to
// earlier transactions (a tip's total, a void) are stored with it.
func (a *Area) run(tx *bolt.Tx, l *location, d *device, in launchInput, now time.Time) (*transaction, error) {
	s := a.Settings()
	t := &transaction{
		LocationID: l.LocationID, DeviceName: d.Name, Type: in.Type, Amount: in.Amount, Ref: in.Ref, Cashier: in.Cashier,
		UniqueTransRef: in.UniqueTransRef, TestMode: in.TestMode, LaunchedAt: now, ReadyAt: now.Add(s.HostDelay),
	}
	if err := a.assignIDs(tx, l, t); err != nil {
		return nil, err
	}
	t.Outcome.Batch = d.Batch
	var err error
	switch {
	case in.Type == typeSale && in.UniqueTransRef != "":
		t.TokenSale = true
		err = a.tokenSale(tx, l, d, t)
	case in.Type == typeSale || in.Type == typeReturn || in.Type == typeSaveCard:
		t.UniqueTransRef = "" // not used by these types: ignored
		err = a.cardPresent(tx, d, t, s)
	case in.Type == typeVoid:
		err = a.void(tx, l, t)
	case in.Type == typeAddTip:
		err = a.addTip(tx, l, d, t)
	}
	return t, err
}

// assignIDs gives t its RemoteTransactionId, its UniqueTransID (the first
// 10 characters with short ids, drawn again on a collision) and the
// processor's transaction ids.
func (a *Area) assignIDs(tx *bolt.Tx, l *location, t *transaction) error {
	for {
		t.RemoteID = hexID()
		t.ID = t.RemoteID
		if l.ShortIDs {
			t.ID = t.RemoteID[:10]
		}
		if !transactionExists(tx, t.ID) {
			break
		}
	}
	seq, err := nextSequence(tx, bucketTransactions)
	if err != nil {
		return err
	}
	t.Outcome.TransactionID = fmt.Sprintf("%d", 700000000+seq)
	t.Outcome.ExternalID = guid()
	return nil
}

// refuseAt makes t a refusal by the device or host: ResultStatus false
// with the terminal's message, nothing charged.
func refuseAt(t *transaction, original, format string, args ...any) {
	t.Outcome.Approved, t.Outcome.Message, t.Outcome.Original = false, fmt.Sprintf(format, args...), original
}

// cardPresent runs a sale, return or save card: the emulated cardholder
// presents a card (the amount table's or the admin's next one) or cancels,
// lets the terminal time out or pulls the card; duplicate detection
// compares with the device's previous transaction.
func (a *Area) cardPresent(tx *bolt.Tx, d *device, t *transaction, s Settings) error {
	result, card := approve, "visa"
	if t.Type != typeSaveCard {
		result, card = byAmount(t.Amount)
	}
	if card != "" && d.NextCard != "" {
		card, d.NextCard = d.NextCard, ""
	}
	t.ReadyAt = t.LaunchedAt.Add(s.CardholderDelay)
	if result == timeoutAtTerminal {
		t.ReadyAt = t.LaunchedAt.Add(s.TerminalTimeout)
	}
	o := &t.Outcome
	o.Message, o.Card = outcomeMessages[result], card
	if card != "" {
		o.EntryMethod = "Chipped"
	}
	switch result {
	case approve:
		if dup, err := a.duplicateOf(tx, d, t, card); err != nil || dup {
			return err
		}
		o.Approved, o.EMV, o.ApprovalNumber = true, true, approvalNumber()
		if t.Type != typeSaveCard {
			o.Processed = t.Amount
			t.Charge = &charge{SaleAmount: t.Amount, Total: t.Amount}
		}
	case decline:
		o.EMV = true
	}
	return nil
}

// duplicateOf applies duplicate detection: when the device's previous
// transaction was an approved one of the same type, TransactionRef,
// amount and card, t answers with its approval from the terminal's log
// (FromLogFile) and charges nothing. It reports whether t is a duplicate.
func (a *Area) duplicateOf(tx *bolt.Tx, d *device, t *transaction, card string) (bool, error) {
	if !d.DuplicateDetection || d.LastTx == "" || t.Ref == "" || t.Type == typeSaveCard {
		return false, nil
	}
	prev, err := getTransaction(tx, d.LastTx)
	if errors.Is(err, kit.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !prev.Outcome.Approved || prev.Type != t.Type || prev.TokenSale != t.TokenSale ||
		prev.Ref != t.Ref || prev.Amount != t.Amount || prev.Outcome.Card != card {
		return false, nil
	}
	original := prev.ID
	if prev.Outcome.FromLogFile {
		original = prev.Outcome.Original
	}
	o := prev.Outcome
	o.FromLogFile, o.Original = true, original
	t.Outcome = o
	return true, nil
}

// resolve reads the transaction an UniqueTransRef names, following a
// duplicate to the transaction it answered with.
func resolve(tx *bolt.Tx, id string) (*transaction, error) {
	t, err := getTransaction(tx, id)
	if err != nil {
		return nil, err
	}
	if t.Outcome.FromLogFile && t.Outcome.Original != "" {
		return getTransaction(tx, t.Outcome.Original)
	}
	return t, nil
}

// sameMerchant tells whether the token was saved at l or at another
// location of the same merchant (the same API key); a location that is gone
// is another merchant's.
func sameMerchant(tx *bolt.Tx, l *location, tok *transaction) (bool, error) {
	if tok.LocationID == l.LocationID {
		return true, nil
	}
	other, err := getLocation(tx, tok.LocationID)
	if errors.Is(err, kit.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return other.APIKey == l.APIKey, nil
}

// tokenSale charges the card saved by an earlier save-card or sale of the
// same merchant (any of its locations). No card is presented, so only the
// decline amount applies.
func (a *Area) tokenSale(tx *bolt.Tx, l *location, d *device, t *transaction) error {
	tok, err := resolve(tx, t.UniqueTransRef)
	if errors.Is(err, kit.ErrNotFound) {
		refuseAt(t, "", "TOKEN NOT FOUND")
		return nil
	}
	if err != nil {
		return err
	}
	same, err := sameMerchant(tx, l, tok)
	if err != nil {
		return err
	}
	if !same {
		refuseAt(t, "", "TOKEN NOT FOUND")
		return nil
	}
	switch {
	case !tok.ready(t.LaunchedAt):
		refuseAt(t, tok.ID, "ORIGINAL TRANSACTION IN PROGRESS")
		return nil
	case !tok.Outcome.Approved || tok.Outcome.Card == "" || (tok.Type != typeSaveCard && tok.Type != typeSale):
		refuseAt(t, tok.ID, "TOKEN NOT USABLE")
		return nil
	}
	o := &t.Outcome
	o.Card, o.EntryMethod, o.Original = tok.Outcome.Card, "Token", tok.ID
	if result, _ := byAmount(t.Amount); result == decline {
		o.Message = outcomeMessages[decline]
		return nil
	}
	if dup, err := a.duplicateOf(tx, d, t, o.Card); err != nil || dup {
		return err
	}
	o.Approved, o.Message, o.ApprovalNumber, o.Processed = true, outcomeMessages[approve], approvalNumber(), t.Amount
	t.Charge = &charge{SaleAmount: t.Amount, Total: t.Amount}
	return nil
}

// original reads the sale or return a void or tip names at l, or makes t
// a refusal and returns nil.
func original(tx *bolt.Tx, l *location, t *transaction) (*transaction, error) {
	orig, err := resolve(tx, t.UniqueTransRef)
	if errors.Is(err, kit.ErrNotFound) || (err == nil && orig.LocationID != l.LocationID) {
		refuseAt(t, "", "ORIGINAL TRANSACTION NOT FOUND")
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !orig.ready(t.LaunchedAt) {
		refuseAt(t, orig.ID, "ORIGINAL TRANSACTION IN PROGRESS")
		return nil, nil
	}
	return orig, nil
}

// void cancels an approved sale (with its tip) or return, on any device of
// the location.
func (a *Area) void(tx *bolt.Tx, l *location, t *transaction) error {
	orig, err := original(tx, l, t)
	if orig == nil || err != nil {
		return err
	}
	switch {
	case orig.Type == typeAddTip:
		refuseAt(t, orig.ID, "VOID THE ORIGINAL SALE, NOT A TIP")
		return nil
	case orig.Charge == nil:
		refuseAt(t, orig.ID, "TRANSACTION CANNOT BE VOIDED")
		return nil
	case orig.Charge.VoidedBy != "":
		refuseAt(t, orig.ID, "TRANSACTION ALREADY VOIDED")
		return nil
	}
	orig.Charge.VoidedBy = t.ID
	o := &t.Outcome
	o.Approved, o.Message, o.ApprovalNumber, o.Original = true, outcomeMessages[approve], approvalNumber(), orig.ID
	o.Card, o.EntryMethod, o.Processed = orig.Outcome.Card, orig.Outcome.EntryMethod, orig.Charge.Total
	return putTransaction(tx, orig)
}

// addTip sets the total of an approved sale, on the sale's device and
// against the sale itself: the tip is the total less the sale amount; the
// same total again changes nothing.
func (a *Area) addTip(tx *bolt.Tx, l *location, d *device, t *transaction) error {
	orig, err := original(tx, l, t)
	if orig == nil || err != nil {
		return err
	}
	switch {
	case orig.Type == typeAddTip:
		refuseAt(t, orig.ID, "TIP MUST REFERENCE THE ORIGINAL SALE")
		return nil
	case orig.Type != typeSale || orig.Charge == nil:
		refuseAt(t, orig.ID, "TIP ONLY ON AN APPROVED SALE")
		return nil
	case orig.DeviceName != d.Name:
		refuseAt(t, orig.ID, "ORIGINAL SALE RAN ON DEVICE %s", orig.DeviceName)
		return nil
	case orig.Charge.VoidedBy != "":
		refuseAt(t, orig.ID, "ORIGINAL SALE VOIDED")
		return nil
	case t.Amount < orig.Charge.SaleAmount:
		refuseAt(t, orig.ID, "TIP TOTAL BELOW SALE AMOUNT")
		return nil
	}
	c := orig.Charge
	o := &t.Outcome
	o.Approved, o.Message, o.ApprovalNumber, o.Original = true, outcomeMessages[approve], orig.Outcome.ApprovalNumber, orig.ID
	o.Card, o.EntryMethod, o.AdjustmentType = orig.Outcome.Card, orig.Outcome.EntryMethod, adjustmentTip
	o.Processed, o.Adjusted = t.Amount, t.Amount-c.Total
	if t.Amount == c.Total {
		o.Tipped = c.Tip
		return nil
	}
	c.Total, c.Tip, c.TipTx = t.Amount, t.Amount-c.SaleAmount, t.ID
	o.Tipped = c.Tip
	return putTransaction(tx, orig)
}
