package terminals

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
)

// plan checks a launch request against the merchant, its devices and the
// launch it acts on, and builds the launch, by the row of launchRules of
// its kind. Problems come back as field messages (apperr.ValidationError),
// all at once.
func (s *Service) plan(ctx context.Context, u *models.User, acc *Access, req LaunchRequest) (*plan, error) {
	kind := Kind(strings.TrimSpace(req.Kind))
	rule, ok := launchRules[kind]
	if !ok {
		return nil, apperr.Invalid("kind", "Choose what to run on the terminal.")
	}
	errs := apperr.FieldErrors{}
	l := &Launch{ID: uuid.New(), MerchantID: acc.Merchant.ID, Kind: kind, CreatedBy: u.ID}
	p := &plan{launch: l}
	if rule.original {
		orig, msg := s.original(ctx, acc.Merchant.ID, kind, req.Original)
		if msg != "" {
			errs.Add("original", msg)
		}
		p.original = orig
		if orig != nil {
			l.OriginalID = &orig.ID
		}
	}
	locID, device := rule.runs.where(strings.TrimSpace(req.LocationID), strings.TrimSpace(req.Device), p.original)
	loc, err := s.planDevice(ctx, acc.Merchant, locID, device, errs)
	if err != nil {
		return nil, err
	}
	p.loc, l.LocationID, l.DeviceName, l.TestMode = loc, locID, device, loc.TestMode
	if rule.amount {
		planAmount(l, p.original, req, errs)
	}
	planReferences(l, rule.refs, p.original, req, u, errs)
	if rule.reason {
		planReturn(l, req, errs)
	}
	if rule.consent && !bool(req.Consent) {
		errs.Add("consent", "Tick the box once the cardholder has agreed to have their card saved.")
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// planDevice finds the location and checks that the device is one of its
// live terminals; a problem is the device field's.
func (s *Service) planDevice(ctx context.Context, m *Merchant, locID, device string, errs apperr.FieldErrors) (Location, error) {
	loc, ok := m.Location(locID)
	if !ok {
		errs.Add("device", "Choose one of the merchant's terminals.")
		return loc, nil
	}
	d, err := s.store.Device(ctx, nil, m.ID, locID, device)
	if err != nil && !errors.Is(err, models.ErrNotFound) {
		return loc, err
	}
	if err != nil || d.RemovedAt != nil {
		errs.Add("device", "Choose one of the location's terminals; refresh the devices if one is missing.")
	}
	return loc, nil
}

// planReturn reads a return's reason and the sale it is linked to.
func planReturn(l *Launch, req LaunchRequest, errs apperr.FieldErrors) {
	reason, ok := cleanText(req.Reason)
	switch {
	case reason == "":
		errs.Add("reason", "Say why the money goes back: returns are audited.")
	case !ok || len(reason) > maxReason:
		errs.Add("reason", fmt.Sprintf("Use at most %d characters, without line breaks.", maxReason))
	}
	l.Reason = reason
	linked, ok := parseID(req.Linked)
	if !ok {
		errs.Add("linked", "Choose the sale from the list, or none.")
	}
	l.LinkedLedgerID = linked
}

// original loads the launch a void, tip or token sale acts on, and says
// what is wrong with it for that kind ("" when nothing).
func (s *Service) original(ctx context.Context, merchantID uuid.UUID, kind Kind, raw string) (*Launch, string) {
	id, ok := parseID(raw)
	if !ok || id == nil {
		return nil, originalMissing(kind)
	}
	o, err := s.store.MerchantLaunch(ctx, merchantID, *id)
	if err != nil {
		return nil, "That transaction is not one of this merchant's."
	}
	if o.State != StateApproved || o.UniqueTransID == nil {
		return o, "Only an approved transaction can be used."
	}
	acting, err := s.store.ActingOn(ctx, nil, o.ID)
	if err != nil {
		return o, "That transaction could not be checked; try again."
	}
	return o, originalProblem(kind, o, voidOf(acting))
}

// originalMissing is what a kind asks for when the form names no original.
func originalMissing(kind Kind) string {
	switch kind {
	case KindTokenSale:
		return "Choose a saved card."
	case KindTip:
		return "Choose the sale to add the tip to."
	}
	return "Choose the transaction to void."
}

// originalRule is one thing a kind asks of the approved launch it acts on (o,
// and voided, the void of it approved or on its way, if any): when refuses
// holds, problem says why.
type originalRule struct {
	refuses func(o, voided *Launch) bool
	problem string
}

// originalRules is the decision table of what each kind asks of its original,
// in order: the first rule that refuses names the problem.
var originalRules = map[Kind][]originalRule{
	KindTokenSale: {
		{func(o, _ *Launch) bool { return o.Kind != KindSaveCard }, "Choose a saved card."},
	},
	KindTip: {
		{func(o, _ *Launch) bool { return !o.Kind.isSale() }, "A tip is added to a sale: choose the original sale, never a tip."},
		{func(o, _ *Launch) bool { return o.Duplicate }, "This answer repeated an earlier approval: add the tip to that original sale."},
		{func(_, voided *Launch) bool { return voided != nil }, "This sale was voided."},
	},
	KindVoid: {
		{func(o, _ *Launch) bool { return !o.Kind.isSale() && o.Kind != KindReturn },
			"Only a sale or a return can be voided; to undo a tip, void its sale."},
		{func(_, voided *Launch) bool { return voided != nil && voided.State == StateApproved }, "This transaction was voided already."},
		{func(_, voided *Launch) bool { return voided != nil }, "A void of this transaction is under way."},
	},
}

// originalProblem applies kind's rules to its original o ("" when none refuses).
func originalProblem(kind Kind, o, voided *Launch) string {
	for _, r := range originalRules[kind] {
		if r.refuses(o, voided) {
			return r.problem
		}
	}
	return ""
}

// isSale reports a sale, keyed or charged to a saved card.
func (k Kind) isSale() bool { return k == KindSale || k == KindTokenSale }

// voidOf returns the approved or open void among the launches acting on a
// transaction, or nil.
func voidOf(acting []*Launch) *Launch {
	for _, a := range acting {
		if a.Kind == KindVoid && (a.State == StateApproved || a.State.Open()) {
			return a
		}
	}
	return nil
}

// currentTotal is a sale's total now: its last approved tip's, or its own.
func currentTotal(sale *Launch, acting []*Launch) int64 {
	total := sale.Amount()
	for _, a := range acting {
		if a.Kind == KindTip && a.State == StateApproved {
			total = a.Amount()
		}
	}
	return total
}

// planAmount reads the amount: a sale's or return's, or a tip's new total.
func planAmount(l *Launch, original *Launch, req LaunchRequest, errs apperr.FieldErrors) {
	cents, ok := parseMoney(req.Amount)
	switch {
	case strings.TrimSpace(req.Amount) == "":
		errs.Add("amount", "Enter the amount.")
		return
	case !ok:
		errs.Add("amount", "Enter an amount such as 12.50.")
		return
	case cents <= 0 || cents > maxAmount:
		errs.Add("amount", "Enter an amount from 0.01 to 99,999.99.")
		return
	}
	l.AmountCents = &cents
	if l.Kind != KindTip || original == nil {
		return
	}
	sale := original.Amount()
	l.BaseCents = &sale
	tip := cents - sale
	switch {
	case cents < sale:
		errs.Add("amount", "The new total cannot be below the sale amount of "+FormatCents(sale)+".")
	case tip*100 > sale*tipWarnPercent && !bool(req.ConfirmTip):
		errs.Add("confirm_tip", fmt.Sprintf("The tip of %s is %d%% of the sale, above %d%%: tick the box to confirm it.",
			FormatCents(tip), tip*100/sale, tipWarnPercent))
	}
}

// planReferences sets the invoice, reference and cashier. Voids and tips
// carry their sale's (refs fromSale); the others the invoice typed (or one
// made up), and sales and returns get their payment number when they are
// stored.
func planReferences(l *Launch, refs refsFrom, original *Launch, req LaunchRequest, u *models.User, errs apperr.FieldErrors) {
	cashier, ok := cleanText(req.Cashier)
	if !ok || len(cashier) > maxCashier {
		errs.Add("cashier", fmt.Sprintf("Use at most %d characters.", maxCashier))
	}
	if cashier == "" {
		cashier = truncate(u.DisplayName(), maxCashier)
	}
	l.Cashier = cashier
	if refs == fromSale && original != nil {
		l.InvoiceRef, l.PaymentNumber, l.TransactionRef = original.InvoiceRef, original.PaymentNumber, original.TransactionRef
		return
	}
	invoice, ok := cleanText(req.Invoice)
	switch {
	case !ok || len(invoice) > maxInvoice:
		errs.Add("invoice", fmt.Sprintf("Use at most %d characters, without line breaks.", maxInvoice))
	case invoice == "":
		invoice = "T-" + strings.ToUpper(l.ID.String()[:8])
	}
	l.InvoiceRef, l.TransactionRef = invoice, invoice
}

// truncate cuts s to at most n bytes on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
