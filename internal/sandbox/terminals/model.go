package terminals

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// location is one merchant location of the terminal cloud, with its
// devices, as stored in the terminals.locations bucket.
type location struct {
	ConfigID       string    `json:"configId"`   // the configuration's Id, 32 hex
	LocationID     string    `json:"locationId"` // e.g. YZM-5B5-RAC
	LocationKey    int       `json:"locationKey"`
	Name           string    `json:"name"`
	APIKey         string    `json:"apiKey"`
	ApplicationID  string    `json:"applicationId,omitempty"` // the boarded merchant, if any
	ControllerName string    `json:"controllerName"`
	ApplicationKey string    `json:"applicationKey"`
	CreatedOn      time.Time `json:"createdOn"`
	// Production locations accept TestMode false; test locations refuse it.
	Production bool `json:"production"`
	ShortIDs   bool `json:"useShortUniqueTransId"`
	Level2     bool `json:"level2Enabled"`
	// SilentSince is when the last device went offline (the controller's
	// heartbeat stops there); zero while any device is online.
	SilentSince time.Time `json:"silentSince,omitzero"`
	Devices     []device  `json:"devices"`
}

// device is one terminal of a location.
type device struct {
	ID                 string    `json:"id"`
	Name               string    `json:"name"`
	Type               string    `json:"type"` // Emulator, S300, D210
	IPAddress          string    `json:"ipAddress"`
	TCPPort            string    `json:"tcpPort"`
	SerialNumber       string    `json:"serialNumber,omitempty"` // none on emulators
	CreatedOn          time.Time `json:"createdOn"`
	IsDefault          bool      `json:"isDefault"`
	PromptForTip       bool      `json:"promptForTipOnTerminal"`
	RequestSignature   bool      `json:"requestSignature"`
	Offline            bool      `json:"offline"`
	DuplicateDetection bool      `json:"duplicateDetection"`
	// NextCard is the card the next card read presents (an admin choice),
	// overriding the amount table; empty for the table's choice.
	NextCard  string    `json:"nextCard,omitempty"`
	BusyUntil time.Time `json:"busyUntil,omitzero"`
	BusyWith  string    `json:"busyWith,omitempty"`
	// LastTx is the device's previous transaction, which duplicate
	// detection compares with.
	LastTx string `json:"lastTx,omitempty"`
	Batch  int    `json:"batch"`
}

// busy reports whether the device runs a transaction at now.
func (d *device) busy(now time.Time) bool { return now.Before(d.BusyUntil) }

// device returns the device named name.
func (l *location) device(name string) *device {
	for i := range l.Devices {
		if l.Devices[i].Name == name {
			return &l.Devices[i]
		}
	}
	return nil
}

// heartbeat is the controller's last contact: the current 30-second tick
// while a device is online, else when the last one went offline.
func (l *location) heartbeat(now time.Time) time.Time {
	if !l.SilentSince.IsZero() {
		return l.SilentSince
	}
	return now.Truncate(30 * time.Second)
}

// transaction is one launched transaction and what the emulated terminal
// made of it, as stored in the terminals.transactions bucket.
type transaction struct {
	ID             string    `json:"id"`       // UniqueTransID (short with short ids)
	RemoteID       string    `json:"remoteId"` // RemoteTransactionId, 32 hex
	LocationID     string    `json:"locationId"`
	DeviceName     string    `json:"deviceName"`
	Type           string    `json:"type"`
	TokenSale      bool      `json:"tokenSale,omitempty"`
	Amount         cents     `json:"amount"`
	Ref            string    `json:"transactionRef"`
	Cashier        string    `json:"cashier"`
	UniqueTransRef string    `json:"uniqueTransRef,omitempty"`
	TestMode       bool      `json:"testMode"`
	LaunchedAt     time.Time `json:"launchedAt"`
	ReadyAt        time.Time `json:"readyAt"`
	Outcome        outcome   `json:"outcome"`
	// Charge is what an approved sale or return moved, kept up to date by
	// tips and voids; zero for the other types and for duplicates.
	Charge *charge `json:"charge,omitempty"`
}

// outcome is the finished transaction's result data.
type outcome struct {
	Approved       bool   `json:"approved"`
	Message        string `json:"message"`
	ApprovalNumber string `json:"approvalNumber,omitempty"`
	Card           string `json:"card,omitempty"` // key in testCards; empty when no card was read
	EntryMethod    string `json:"entryMethod,omitempty"`
	EMV            bool   `json:"emv,omitempty"` // a chip was read: the result carries the EMV receipt
	Processed      cents  `json:"processed"`
	Tipped         cents  `json:"tipped"`
	Adjusted       cents  `json:"adjusted"`
	AdjustmentType int    `json:"adjustmentType"`
	FromLogFile    bool   `json:"fromLogFile,omitempty"`
	// Original is the transaction a duplicate answered with, a void
	// cancelled or a tip adjusted.
	Original      string `json:"original,omitempty"`
	TransactionID string `json:"transactionId"`
	ExternalID    string `json:"externalId"`
	Batch         int    `json:"batch"`
}

// charge is the money an approved sale or return moved.
type charge struct {
	SaleAmount cents  `json:"saleAmount"` // the amount launched
	Total      cents  `json:"total"`      // with the tip
	Tip        cents  `json:"tip"`
	TipTx      string `json:"tipTx,omitempty"`
	VoidedBy   string `json:"voidedBy,omitempty"`
}

// cents is money in cents; it is written as a JSON number with two
// decimals (12.34), as the cloud's results carry amounts.
type cents int64

// parseCents reads a decimal amount with at most two decimals.
func parseCents(s string) (cents, error) {
	whole, frac, dot := strings.Cut(strings.TrimSpace(s), ".")
	if whole == "" || len(whole) > 9 || len(frac) > 2 || (dot && frac == "") || !allDigits(whole) || !allDigits(frac) {
		return 0, fmt.Errorf("%q is not an amount such as 12.34", s)
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	f, _ := strconv.ParseInt((frac + "00")[:2], 10, 64)
	return cents(w*100 + f), nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// String formats c as 12.34.
func (c cents) String() string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// MarshalJSON writes a JSON number with two decimals.
func (c cents) MarshalJSON() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalJSON reads what MarshalJSON wrote.
func (c *cents) UnmarshalJSON(b []byte) error {
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	s := n.String()
	neg := strings.HasPrefix(s, "-")
	v, err := parseCents(strings.TrimPrefix(s, "-"))
	if err != nil {
		return err
	}
	if neg {
		v = -v
	}
	*c = v
	return nil
}
