package terminals

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// The transaction types of the specification.
const (
	typeSale     = "CreditSale"
	typeReturn   = "CreditReturn"
	typeVoid     = "Void"
	typeSaveCard = "CreditSaveCard"
	typeAddTip   = "CreditAddTip"
)

// Limits of a launch request (its body's is kit.MaxBody).
const (
	maxTextLen = 50
	maxAmount  = cents(99_999_99)
)

// launchRequest is the terminal transaction request. Null and "" both mean
// "not given"; TestMode and Amount are also read from the other JSON type
// (a "true" string, a number), as lenient .NET services do.
type launchRequest struct {
	Action     string          `json:"Action"`
	TestMode   json.RawMessage `json:"TestMode"`
	Message    json.RawMessage `json:"Message"`
	LocationID string          `json:"LocationId"`
	DeviceName string          `json:"DeviceName"`
	Data       *launchData     `json:"Data"`
}

// launchData is the request's Data: the transaction itself.
type launchData struct {
	TransactionType string          `json:"TransactionType"`
	Amount          json.RawMessage `json:"Amount"`
	TransactionRef  string          `json:"TransactionRef"`
	Cashier         string          `json:"Cashier"`
	UniqueTransRef  string          `json:"UniqueTransRef"`
}

// launchInput is a checked launch request.
type launchInput struct {
	LocationID, DeviceName string
	TestMode               bool
	Type                   string
	Amount                 cents
	Ref, Cashier           string
	UniqueTransRef         string
}

// badRequest is a launch refused as sent (400).
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func bad(format string, args ...any) error { return &badRequest{fmt.Sprintf(format, args...)} }

// checkLaunch checks a launch request; every problem is named at once.
func checkLaunch(req launchRequest) (launchInput, error) {
	in := launchInput{LocationID: strings.TrimSpace(req.LocationID), DeviceName: strings.TrimSpace(req.DeviceName)}
	var errs []string
	if !strings.EqualFold(strings.TrimSpace(req.Action), "Transaction") {
		errs = append(errs, "Action must be Transaction")
	}
	switch tm := strings.ToLower(strings.Trim(string(bytes.TrimSpace(req.TestMode)), `"`)); tm {
	case "true":
		in.TestMode = true
	case "false", "", "null":
	default:
		errs = append(errs, "TestMode must be true or false")
	}
	if in.LocationID == "" {
		errs = append(errs, "LocationId is required")
	}
	if in.DeviceName == "" {
		errs = append(errs, "DeviceName is required")
	}
	if req.Data == nil {
		errs = append(errs, "Data is required")
	} else {
		errs = append(errs, checkData(req.Data, &in)...)
	}
	if len(errs) > 0 {
		return in, bad("%s.", strings.Join(errs, "; "))
	}
	return in, nil
}

// checkData reads the transaction's Data into in and says what is wrong
// with it.
func checkData(d *launchData, in *launchInput) []string {
	var errs []string
	in.Type, in.Ref, in.Cashier, in.UniqueTransRef = strings.TrimSpace(d.TransactionType), d.TransactionRef, d.Cashier, strings.TrimSpace(d.UniqueTransRef)
	needAmount, needRef := false, false
	switch in.Type {
	case typeSale, typeReturn:
		needAmount = true
	case typeAddTip:
		needAmount, needRef = true, true
	case typeVoid:
		needRef = true
	case typeSaveCard:
	default:
		errs = append(errs, "Data.TransactionType must be one of CreditSale, CreditReturn, Void, CreditSaveCard, CreditAddTip")
	}
	if needAmount {
		var msg string
		in.Amount, msg = checkAmount(d.Amount, in.Type)
		if msg != "" {
			errs = append(errs, msg)
		}
	}
	if needRef && in.UniqueTransRef == "" {
		errs = append(errs, "Data.UniqueTransRef is required for "+in.Type)
	}
	if len(in.Ref) > maxTextLen || len(in.Cashier) > maxTextLen {
		errs = append(errs, fmt.Sprintf("Data.TransactionRef and Data.Cashier are at most %d characters", maxTextLen))
	}
	return errs
}

// checkAmount reads Data.Amount (a decimal string or a number) for a
// transaction type that needs one, and says what is wrong with it.
func checkAmount(value json.RawMessage, typ string) (cents, string) {
	raw := strings.Trim(string(bytes.TrimSpace(value)), `"`)
	amount, err := parseCents(raw)
	switch {
	case raw == "" || raw == "null":
		return amount, "Data.Amount is required for " + typ
	case err != nil:
		return amount, "Data.Amount: " + err.Error()
	case amount <= 0 || amount > maxAmount:
		return amount, "Data.Amount must be between 0.01 and " + maxAmount.String()
	}
	return amount, ""
}

// launchRefusal is a launch the cloud refuses with an HTTP status.
type launchRefusal struct {
	status int
	msg    string
}

func (e *launchRefusal) Error() string { return e.msg }

func refuse(status int, format string, args ...any) error {
	return &launchRefusal{status: status, msg: fmt.Sprintf(format, args...)}
}

// handleLaunch serves POST /transaction.json: it checks the request,
// hands it to the named device and answers at once with the UniqueTransId
// to read the result with. An x-apikey header is not needed; one that is
// sent must be the location's.
func (a *Area) handleLaunch(w http.ResponseWriter, r *http.Request) {
	var req launchRequest
	if err := (kit.Body{Type: kit.JSONTypeIfSent}).Read(w, r, &req); err != nil {
		writeBodyError(w, err)
		return
	}
	in, err := checkLaunch(req)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%s", err.Error())
		return
	}
	var t *transaction
	err = a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		var err error
		t, err = a.launch(tx, in, r.Header.Get(apiKeyHeader))
		return err
	})
	var refusal *launchRefusal
	switch {
	case errors.As(err, &refusal):
		writeError(w, refusal.status, "%s", refusal.msg)
		return
	case err != nil:
		a.env.Log.Error("terminal launch failed", "err", err)
		writeError(w, http.StatusInternalServerError, "The transaction could not be launched.")
		return
	}
	a.env.Log.Info("terminal transaction launched", "location_id", t.LocationID, "device", t.DeviceName,
		"type", t.Type, "unique_trans_id", t.ID, "test_mode", t.TestMode)
	writeOK(w, struct {
		UniqueTransID string `json:"UniqueTransId"`
	}{t.ID})
}

// launch checks the location, key, test mode and device, then runs the
// transaction on the device, in one store transaction so that a device
// takes one transaction at a time.
func (a *Area) launch(tx *bolt.Tx, in launchInput, key string) (*transaction, error) {
	l, err := getLocation(tx, in.LocationID)
	if errors.Is(err, kit.ErrNotFound) {
		return nil, refuse(http.StatusNotFound, "Location %q was not found.", in.LocationID)
	}
	if err != nil {
		return nil, err
	}
	if key != "" && !sameKey(key, l.APIKey) {
		return nil, refuse(http.StatusUnauthorized, "The API key is not valid for location %q.", in.LocationID)
	}
	if !l.Production && !in.TestMode {
		return nil, refuse(http.StatusBadRequest, "Location %q is a test location: send TestMode true.", in.LocationID)
	}
	d := l.device(in.DeviceName)
	if d == nil {
		return nil, refuse(http.StatusNotFound, "Device %q was not found at location %q.", in.DeviceName, in.LocationID)
	}
	now := a.env.Clock.Now()
	if d.Offline {
		return nil, refuse(http.StatusServiceUnavailable, "Device %q is offline: check its power and network, then try again.", d.Name)
	}
	if d.busy(now) {
		return nil, refuse(http.StatusConflict, "Device %q is busy with another transaction: wait for it to finish.", d.Name)
	}
	t, err := a.run(tx, l, d, in, now)
	if err != nil {
		return nil, err
	}
	d.BusyUntil, d.BusyWith, d.LastTx = t.ReadyAt, t.ID, t.ID
	if err := putTransaction(tx, t); err != nil {
		return nil, err
	}
	return t, putLocation(tx, l)
}
