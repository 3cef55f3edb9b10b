package terminals

// Checking a launch is a decision table by kind: launchRules says, for each
// kind, what the request must carry and where it runs, and plan follows the
// row. A kind not in the table is not a kind.

// launchRule is what a launch of one kind involves.
type launchRule struct {
	// original: it acts on an earlier launch (a void, a tip, a token sale).
	original bool
	// runs says on which location and device.
	runs runsOn
	// amount: the user types an amount (a tip's is the new total).
	amount bool
	// refs says where the invoice, reference and cashier come from.
	refs refsFrom
	// reason: a return, with its reason and the sale it is linked to.
	reason bool
	// consent: a card saved with the cardholder's consent.
	consent bool
}

// runsOn says where a launch runs.
type runsOn int

const (
	// onChosenDevice: the location and device the form names.
	onChosenDevice runsOn = iota
	// onSalesDevice: the sale's own location and device, whatever the form
	// names (a tip is added on the terminal that took the sale).
	onSalesDevice
	// onSalesLocation: the form's device when it names one at the sale's
	// location, else the sale's (a void).
	onSalesLocation
)

// where returns the location and device a launch runs on, given the form's
// and the sale it acts on (nil when none was found).
func (r runsOn) where(locID, device string, sale *Launch) (string, string) {
	switch {
	case sale == nil || r == onChosenDevice:
		return locID, device
	case r == onSalesDevice, locID != sale.LocationID, device == "":
		return sale.LocationID, sale.DeviceName
	}
	return locID, device
}

// refsFrom says where a launch's invoice and reference come from.
type refsFrom int

const (
	// typed: the invoice the user typed, or one made up.
	typed refsFrom = iota
	// fromSale: the sale's invoice, payment number and reference.
	fromSale
)

// launchRules is the table, one row per kind.
var launchRules = map[Kind]launchRule{
	KindSale:      {runs: onChosenDevice, amount: true, refs: typed},
	KindTokenSale: {original: true, runs: onChosenDevice, amount: true, refs: typed},
	KindReturn:    {runs: onChosenDevice, amount: true, refs: typed, reason: true},
	KindSaveCard:  {runs: onChosenDevice, refs: typed, consent: true},
	KindVoid:      {original: true, runs: onSalesLocation, refs: fromSale},
	KindTip:       {original: true, runs: onSalesDevice, amount: true, refs: fromSale},
}
