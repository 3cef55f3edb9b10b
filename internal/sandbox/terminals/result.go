package terminals

import "strconv"

// wireResult is the transaction result object, every field of the
// specification. Amounts are JSON numbers, ResultStatus the text "true" or
// "false", timestamps local and zone-less with ComputerTimeZoneOffset.
type wireResult struct {
	ComputerName           string   `json:"ComputerName"`
	ApplicationKey         string   `json:"ApplicationKey"`
	RemoteDeviceID         string   `json:"RemoteDeviceID"`
	RemoteTransactionID    string   `json:"RemoteTransactionId"`
	DeviceName             string   `json:"DeviceName"`
	Version                string   `json:"Version"`
	ResultStatus           string   `json:"ResultStatus"`
	ResultMessage          string   `json:"ResultMessage"`
	TransactionType        string   `json:"TransactionType"`
	ApprovalNumberResult   string   `json:"ApprovalNumberResult"`
	BatchNumber            string   `json:"BatchNumber"`
	DeviceBatchNumber      string   `json:"DeviceBatchNumber"`
	BillingName            string   `json:"BillingName"`
	AVSResponseCode        string   `json:"AVSResponseCode"`
	AVSResponseText        string   `json:"AVSResponseText"`
	CVVResponseCode        string   `json:"CVVResponseCode"`
	CVVResponseText        string   `json:"CVVResponseText"`
	AmountBalance          cents    `json:"AmountBalance"`
	AmountProcessed        cents    `json:"AmountProcessed"`
	AmountAdjusted         cents    `json:"AmountAdjusted"`
	AmountTipped           cents    `json:"AmountTipped"`
	AdjustmentTypeID       int      `json:"AdjustmentTypeId"`
	AccountCardType        string   `json:"AccountCardType"`
	AccountExpiryDate      string   `json:"AccountExpiryDate"`
	MaskedAccount          string   `json:"MaskedAccount"`
	AccountEntryMethod     string   `json:"AccountEntryMethod"`
	UniqueTransID          string   `json:"UniqueTransID"`
	TransactionID          string   `json:"TransactionID"`
	ExternalTransactionID  string   `json:"ExternalTransactionID"`
	TransactionReference   string   `json:"TransactionReference"`
	Cashier                string   `json:"Cashier"`
	FromLogFile            bool     `json:"FromLogFile"`
	CreatedOn              string   `json:"CreatedOn"`
	TerminalDateTime       string   `json:"TerminalDateTime"`
	ComputerDateTime       string   `json:"ComputerDateTime"`
	ComputerTimeZoneOffset int      `json:"ComputerTimeZoneOffset"`
	SerialNumber           string   `json:"SerialNumber"`
	EmvReceipt             *wireEMV `json:"EmvReceipt"`
}

// wireEMV is the EMV receipt: null when no chip was read.
type wireEMV struct {
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
}

// sandboxVersion is the Version of every result.
const sandboxVersion = "5.0.0-sandbox"

// resultOf builds t's result as the cloud sends it.
func (a *Area) resultOf(l *location, t *transaction) wireResult {
	o := t.Outcome
	local := localTimestamp(t.ReadyAt, a.zone)
	r := wireResult{
		ComputerName: l.ControllerName, ApplicationKey: l.ApplicationKey, RemoteTransactionID: t.RemoteID,
		DeviceName: t.DeviceName, Version: sandboxVersion, ResultStatus: strconv.FormatBool(o.Approved),
		ResultMessage: o.Message, TransactionType: t.Type, ApprovalNumberResult: o.ApprovalNumber,
		BatchNumber: strconv.Itoa(o.Batch), DeviceBatchNumber: strconv.Itoa(o.Batch),
		AmountProcessed: o.Processed, AmountAdjusted: o.Adjusted, AmountTipped: o.Tipped,
		AdjustmentTypeID: o.AdjustmentType, AccountEntryMethod: o.EntryMethod, UniqueTransID: t.ID,
		TransactionID: o.TransactionID, ExternalTransactionID: o.ExternalID, TransactionReference: t.Ref,
		Cashier: t.Cashier, FromLogFile: o.FromLogFile, CreatedOn: local, TerminalDateTime: local,
		ComputerDateTime: local, ComputerTimeZoneOffset: zoneOffsetHours(t.ReadyAt, a.zone),
	}
	if d := l.device(t.DeviceName); d != nil {
		r.RemoteDeviceID, r.SerialNumber = d.ID, d.SerialNumber
	}
	if c, ok := cardByKey(o.Card); ok {
		r.AccountCardType, r.AccountExpiryDate, r.MaskedAccount, r.BillingName = c.Brand, c.Expiry, c.Masked, c.BillingName
		if o.EMV {
			r.EmvReceipt = &wireEMV{
				CreatedOn: local, AuthorizationMode: "Issuer", CurrencyIndicator: "USD", AID: c.AID,
				TVR: "0000000000", IAD: "06010A03A00000", TSI: "E800", ARC: "00", CardHolderVerificationMethod: "None",
			}
			if !o.Approved {
				r.EmvReceipt.TVR, r.EmvReceipt.ARC = "0000008000", "05"
			}
		}
	}
	return r
}
