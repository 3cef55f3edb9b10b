package terminals

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// TransactionType is the Data.TransactionType of a launch.
type TransactionType string

// The transaction types of the specification. A sale with a saved token is
// a CreditSale with UniqueTransRef.
const (
	CreditSale     TransactionType = "CreditSale"
	CreditReturn   TransactionType = "CreditReturn"
	Void           TransactionType = "Void"
	CreditSaveCard TransactionType = "CreditSaveCard"
	CreditAddTip   TransactionType = "CreditAddTip"
)

// Transaction is what to run on a terminal. Build it with Sale,
// TokenSale, Return, VoidOf, SaveCard or AddTip.
type Transaction struct {
	Type TransactionType
	// Amount is the sale or return amount; for CreditAddTip the new total
	// of the original sale, tip included (the cloud sets the total).
	Amount Amount
	// TransactionRef is the caller's invoice reference; the terminal's
	// duplicate detection compares it. Add a payment counter (INV-42.1,
	// INV-42.2) increased only after an approval.
	TransactionRef string
	Cashier        string
	// UniqueTransRef is the UniqueTransID of an earlier transaction: the
	// saved card (save-card or sale) of a token sale, the sale or return a
	// void cancels, the original sale (never an earlier tip) of a tip.
	UniqueTransRef string
}

// Sale charges amount to the card the cardholder presents.
func Sale(amount Amount, ref, cashier string) Transaction {
	return Transaction{Type: CreditSale, Amount: amount, TransactionRef: ref, Cashier: cashier}
}

// TokenSale charges amount to the card saved by the earlier save-card or
// sale transaction token (its UniqueTransID).
func TokenSale(token string, amount Amount, ref, cashier string) Transaction {
	return Transaction{Type: CreditSale, Amount: amount, TransactionRef: ref, Cashier: cashier, UniqueTransRef: token}
}

// Return credits amount to the card the cardholder presents.
func Return(amount Amount, ref, cashier string) Transaction {
	return Transaction{Type: CreditReturn, Amount: amount, TransactionRef: ref, Cashier: cashier}
}

// VoidOf cancels the sale or return original (its UniqueTransID).
func VoidOf(original, ref, cashier string) Transaction {
	return Transaction{Type: Void, UniqueTransRef: original, TransactionRef: ref, Cashier: cashier}
}

// SaveCard reads a card and saves it; the result's UniqueTransID is the
// token of later TokenSales.
func SaveCard(ref, cashier string) Transaction {
	return Transaction{Type: CreditSaveCard, TransactionRef: ref, Cashier: cashier}
}

// AddTip sets the total of the original sale (its UniqueTransID) to total,
// tip included. Launch it on the sale's device.
func AddTip(sale string, total Amount, ref, cashier string) Transaction {
	return Transaction{Type: CreditAddTip, Amount: total, UniqueTransRef: sale, TransactionRef: ref, Cashier: cashier}
}

// Validate checks the fields the transaction's type needs.
func (t Transaction) Validate() error {
	var errs []error
	needAmount, needRef := false, false
	switch t.Type {
	case CreditSale, CreditReturn:
		needAmount = true
	case CreditAddTip:
		needAmount, needRef = true, true
	case Void:
		needRef = true
	case CreditSaveCard:
	default:
		return &FieldError{Field: "Data.TransactionType", Message: "must be one of CreditSale, CreditReturn, Void, CreditSaveCard, CreditAddTip"}
	}
	if needAmount && t.Amount <= 0 {
		errs = append(errs, &FieldError{Field: "Data.Amount", Message: "must be more than 0.00"})
	}
	if needRef && strings.TrimSpace(t.UniqueTransRef) == "" {
		errs = append(errs, &FieldError{Field: "Data.UniqueTransRef", Message: "is required for " + string(t.Type)})
	}
	return errors.Join(errs...)
}

// wireLaunch is the terminal transaction request.
type wireLaunch struct {
	Action     string   `json:"Action"`
	TestMode   bool     `json:"TestMode"`
	Message    *string  `json:"Message"`
	LocationID string   `json:"LocationId"`
	DeviceName string   `json:"DeviceName"`
	Data       wireData `json:"Data"`
}

type wireData struct {
	TransactionType TransactionType `json:"TransactionType"`
	Amount          string          `json:"Amount,omitempty"`
	TransactionRef  string          `json:"TransactionRef"`
	Cashier         string          `json:"Cashier"`
	UniqueTransRef  string          `json:"UniqueTransRef,omitempty"`
}

// Launched is the cloud's acceptance of a launch.
type Launched struct {
	// UniqueTransID reads the result; with UseShortUniqueTransId it is the
	// 10-character short id.
	UniqueTransID string
	// At is when the launch was sent, by the client's clock: the start of
	// the cardholder's polling budget.
	At time.Time
}

// Launch starts tx on the device deviceName of loc (POST /transaction.json)
// and returns the id to read its result with. It is sent once: repeated
// only when the cloud certainly did not receive it. Errors: ErrInvalid
// (nothing sent), ErrRejected, ErrNotFound (location or device),
// ErrDeviceBusy, ErrUnavailable (offline: nothing launched), and
// ErrOutcomeUnknown when the launch may have reached the device but its
// answer was lost.
func (c *Client) Launch(ctx context.Context, loc Location, deviceName string, tx Transaction) (Launched, error) {
	var errs []error
	if loc.ID == "" {
		errs = append(errs, &FieldError{Field: "LocationId", Message: "is required"})
	}
	if strings.TrimSpace(deviceName) == "" {
		errs = append(errs, &FieldError{Field: "DeviceName", Message: "is required"})
	}
	if err := errors.Join(append(errs, tx.Validate())...); err != nil {
		return Launched{}, err
	}
	body := wireLaunch{Action: "Transaction", TestMode: loc.TestMode, LocationID: loc.ID, DeviceName: deviceName,
		Data: wireData{TransactionType: tx.Type, TransactionRef: tx.TransactionRef, Cashier: tx.Cashier, UniqueTransRef: tx.UniqueTransRef}}
	if tx.Type != Void && tx.Type != CreditSaveCard {
		body.Data.Amount = tx.Amount.String()
	}
	at := c.cfg.Clock.Now()
	cl := call{op: "launch", method: http.MethodPost, path: "/transaction.json", apiKey: loc.APIKey, body: body, policy: retryUnreceived}
	env, err := c.do(ctx, cl)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && launchMayHaveRun(e) {
			e.Unknown = true
		}
		return Launched{}, err
	}
	var res struct {
		UniqueTransID string `json:"UniqueTransId"`
	}
	if env.hasResult() {
		_ = json.Unmarshal(env.Result, &res)
	}
	if !bool(env.Success) || res.UniqueTransID == "" {
		// Accepted by HTTP but without an id to follow: the device may be
		// prompting the cardholder now.
		return Launched{}, &Error{Op: cl.op, Method: cl.method, Path: cl.path, StatusCode: http.StatusOK, Status: env.Status,
			Message: cmp.Or(env.message(), "launch answer carries no UniqueTransId"), Unknown: true}
	}
	return Launched{UniqueTransID: res.UniqueTransID, At: at}, nil
}

// launchMayHaveRun reports a failed launch that the device may have
// received: no answer once the request was written, or a server or gateway
// failure rather than a refusal.
func launchMayHaveRun(e *Error) bool {
	switch e.StatusCode {
	case 0:
		return e.sent
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return true
	}
	return e.StatusCode >= 200 && e.StatusCode <= 299 // an answer that could not be read
}
