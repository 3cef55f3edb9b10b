package terminals

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Result is a finished transaction as the cloud reports it. Amounts are
// exact cents; ResultStatus is the field to trust (the message is display
// text); local timestamps are placed in the reporting computer's zone.
type Result struct {
	ComputerName, ApplicationKey, RemoteDeviceID, RemoteTransactionID, DeviceName, Version string
	// ResultStatus is true when the transaction was approved.
	ResultStatus bool
	// ResultMessage is the terminal's text, e.g. APPROVED or DECLINED.
	ResultMessage                                  string
	TransactionType                                string
	ApprovalNumberResult, BatchNumber              string
	DeviceBatchNumber, BillingName                 string
	AVSResponseCode, AVSResponseText               string
	CVVResponseCode, CVVResponseText               string
	AmountBalance, AmountProcessed, AmountAdjusted Amount
	AmountTipped                                   Amount
	AdjustmentTypeID                               int
	AccountCardType                                string // card brand code
	AccountExpiryDate                              string // MMYY
	MaskedAccount                                  string // e.g. ************4223
	AccountEntryMethod                             string // e.g. Chipped
	// UniqueTransID is this transaction's id (the launch's UniqueTransId).
	UniqueTransID         string
	TransactionID         string
	ExternalTransactionID string
	TransactionReference  string // the TransactionRef sent
	Cashier               string
	// FromLogFile is set when the terminal answered from its log instead
	// of processing: duplicate detection returned the previous approval
	// and charged nothing (see Duplicate).
	FromLogFile bool
	// CreatedOn, TerminalDateTime and ComputerDateTime are the zone-less
	// local timestamps of the result, placed ComputerTimeZoneOffset hours
	// from UTC. Zero when absent.
	CreatedOn, TerminalDateTime, ComputerDateTime time.Time
	ComputerTimeZoneOffset                        int // hours; local = UTC + offset
	SerialNumber                                  string
	// EMVReceipt is the chip data for the receipt; nil when no chip was
	// read (a token sale, a void, a tip).
	EMVReceipt *EMVReceipt
}

// EMVReceipt is the chip data a receipt must print.
type EMVReceipt struct {
	CreatedOn, AuthorizationMode, CurrencyIndicator, AID, TVR, IAD, TSI, ARC string
	CardHolderVerificationMethod, EMVOfflineData                             string
}

// Outcome is what happened at the terminal, read from a Result.
type Outcome string

// The outcomes a caller handles.
const (
	OutcomeApproved    Outcome = "approved"
	OutcomeDeclined    Outcome = "declined"
	OutcomeCancelled   Outcome = "cancelled"    // cancelled at the terminal
	OutcomeTimedOut    Outcome = "timed_out"    // the terminal gave up waiting for the card
	OutcomeCardRemoved Outcome = "card_removed" // the chip card left the reader too early
)

// Outcome classifies the result: approved when ResultStatus is true,
// otherwise by the terminal's message (cancelled, timed out, card
// removed), declined for any other refusal.
func (r *Result) Outcome() Outcome {
	if r.ResultStatus {
		return OutcomeApproved
	}
	msg := strings.ToUpper(r.ResultMessage)
	switch {
	case strings.Contains(msg, "CANCEL") || strings.Contains(msg, "ABORT"):
		return OutcomeCancelled
	case strings.Contains(msg, "TIMEOUT") || strings.Contains(msg, "TIMED OUT"):
		return OutcomeTimedOut
	case strings.Contains(msg, "REMOVED"):
		return OutcomeCardRemoved
	}
	return OutcomeDeclined
}

// Duplicate reports an approval that duplicate detection returned from
// the terminal's log: the card was not charged again.
func (r *Result) Duplicate() bool { return r.ResultStatus && r.FromLogFile }

// wireResult is the result object as sent.
type wireResult struct {
	ComputerName           string    `json:"ComputerName"`
	ApplicationKey         string    `json:"ApplicationKey"`
	RemoteDeviceID         string    `json:"RemoteDeviceID"`
	RemoteTransactionID    string    `json:"RemoteTransactionId"`
	DeviceName             string    `json:"DeviceName"`
	Version                string    `json:"Version"`
	ResultStatus           flexBool  `json:"ResultStatus"`
	ResultMessage          string    `json:"ResultMessage"`
	TransactionType        string    `json:"TransactionType"`
	ApprovalNumberResult   string    `json:"ApprovalNumberResult"`
	BatchNumber            string    `json:"BatchNumber"`
	DeviceBatchNumber      string    `json:"DeviceBatchNumber"`
	BillingName            string    `json:"BillingName"`
	AVSResponseCode        string    `json:"AVSResponseCode"`
	AVSResponseText        string    `json:"AVSResponseText"`
	CVVResponseCode        string    `json:"CVVResponseCode"`
	CVVResponseText        string    `json:"CVVResponseText"`
	AmountBalance          Amount    `json:"AmountBalance"`
	AmountProcessed        Amount    `json:"AmountProcessed"`
	AmountAdjusted         Amount    `json:"AmountAdjusted"`
	AmountTipped           Amount    `json:"AmountTipped"`
	AdjustmentTypeID       flexInt   `json:"AdjustmentTypeId"`
	AccountCardType        string    `json:"AccountCardType"`
	AccountExpiryDate      string    `json:"AccountExpiryDate"`
	MaskedAccount          string    `json:"MaskedAccount"`
	AccountEntryMethod     string    `json:"AccountEntryMethod"`
	UniqueTransID          string    `json:"UniqueTransID"`
	TransactionID          string    `json:"TransactionID"`
	ExternalTransactionID  string    `json:"ExternalTransactionID"`
	TransactionReference   string    `json:"TransactionReference"`
	Cashier                string    `json:"Cashier"`
	FromLogFile            flexBool  `json:"FromLogFile"`
	CreatedOn              string    `json:"CreatedOn"`
	TerminalDateTime       string    `json:"TerminalDateTime"`
	ComputerDateTime       string    `json:"ComputerDateTime"`
	ComputerTimeZoneOffset flexInt   `json:"ComputerTimeZoneOffset"`
	SerialNumber           string    `json:"SerialNumber"`
	EmvReceipt             *struct { // all strings
		CreatedOn                    string `json:"CreatedOn"`
		AuthorizationMode            string `json:"AuthorizationMode"`
		CurrencyIndicator            string `json:"CurrencyIndicator"`
		AID                          string `json:"AID"`
		TVR                          string `json:"TVR"`
		IAD                          string `json:"IAD"`
		TSI                          string `json:"TSI"`
		ARC                          string `json:"ARC"`
		CardHolderVerificationMethod string `json:"CardHolderVerificationMethod"`
		EMVOfflineData               string `json:"EMVOfflineData"`
	} `json:"EmvReceipt"`
}

// result converts the wire shape; a timestamp that cannot be read is an
// error, an absent one stays zero.
func (w wireResult) result() (*Result, error) {
	off := int(w.ComputerTimeZoneOffset)
	r := &Result{
		ComputerName: w.ComputerName, ApplicationKey: w.ApplicationKey, RemoteDeviceID: w.RemoteDeviceID,
		RemoteTransactionID: w.RemoteTransactionID, DeviceName: w.DeviceName, Version: w.Version,
		ResultStatus: bool(w.ResultStatus), ResultMessage: w.ResultMessage, TransactionType: w.TransactionType,
		ApprovalNumberResult: w.ApprovalNumberResult, BatchNumber: w.BatchNumber, DeviceBatchNumber: w.DeviceBatchNumber,
		BillingName: w.BillingName, AVSResponseCode: w.AVSResponseCode, AVSResponseText: w.AVSResponseText,
		CVVResponseCode: w.CVVResponseCode, CVVResponseText: w.CVVResponseText, AmountBalance: w.AmountBalance,
		AmountProcessed: w.AmountProcessed, AmountAdjusted: w.AmountAdjusted, AmountTipped: w.AmountTipped,
		AdjustmentTypeID: int(w.AdjustmentTypeID), AccountCardType: w.AccountCardType,
		AccountExpiryDate: w.AccountExpiryDate, MaskedAccount: w.MaskedAccount, AccountEntryMethod: w.AccountEntryMethod,
		UniqueTransID: w.UniqueTransID, TransactionID: w.TransactionID, ExternalTransactionID: w.ExternalTransactionID,
		TransactionReference: w.TransactionReference, Cashier: w.Cashier, FromLogFile: bool(w.FromLogFile),
		ComputerTimeZoneOffset: off, SerialNumber: w.SerialNumber,
	}
	for _, ts := range []struct {
		dst *time.Time
		src string
	}{{&r.CreatedOn, w.CreatedOn}, {&r.TerminalDateTime, w.TerminalDateTime}, {&r.ComputerDateTime, w.ComputerDateTime}} {
		t, err := parseLocal(ts.src, off)
		if err != nil && !errors.Is(err, errNoTime) {
			return nil, err
		}
		*ts.dst = t
	}
	if e := w.EmvReceipt; e != nil {
		r.EMVReceipt = &EMVReceipt{CreatedOn: e.CreatedOn, AuthorizationMode: e.AuthorizationMode,
			CurrencyIndicator: e.CurrencyIndicator, AID: e.AID, TVR: e.TVR, IAD: e.IAD, TSI: e.TSI, ARC: e.ARC,
			CardHolderVerificationMethod: e.CardHolderVerificationMethod, EMVOfflineData: e.EMVOfflineData}
	}
	return r, nil
}

// Result reads the result of the launched transaction uniqueTransID
// (GET /transactionresult/{uniqueTransId}). It returns ErrNotReady while
// the cardholder has not finished and ErrNotFound for an unknown id. Reads
// are repeated on no answer, 429, 502, 503 and 504.
func (c *Client) Result(ctx context.Context, loc Location, uniqueTransID string) (*Result, error) {
	return c.result(ctx, loc, uniqueTransID, 0)
}

// result reads a result with at most attempts attempts (0: the default).
func (c *Client) result(ctx context.Context, loc Location, id string, attempts int) (*Result, error) {
	if strings.TrimSpace(id) == "" {
		return nil, &FieldError{Field: "uniqueTransId", Message: "is required"}
	}
	cl := call{op: "result", method: http.MethodGet, path: "/transactionresult/" + url.PathEscape(id),
		apiKey: loc.APIKey, policy: retryReads, attempts: attempts}
	env, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	if env.pending() {
		return nil, ErrNotReady
	}
	if !bool(env.Success) || !env.hasResult() {
		return nil, &Error{Op: cl.op, Method: cl.method, Path: cl.path, StatusCode: http.StatusOK, Status: env.Status,
			Message: cmp.Or(env.message(), "answer carries no result")}
	}
	var w wireResult
	if err := json.Unmarshal(env.Result, &w); err != nil {
		return nil, &Error{Op: cl.op, Method: cl.method, Path: cl.path, StatusCode: http.StatusOK,
			Message: "result is not the expected JSON: " + err.Error()}
	}
	r, err := w.result()
	if err != nil {
		return nil, &Error{Op: cl.op, Method: cl.method, Path: cl.path, StatusCode: http.StatusOK, Message: err.Error()}
	}
	return r, nil
}
