package terminals_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/upstream/terminals"
)

func TestConfig(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	cfg, err := e.client.Config(ctx, e.loc)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	if cfg.LocationID != e.loc.ID || len(cfg.ID) != 32 || cfg.LocationKey < 10000 || !cfg.IsActive || cfg.UseShortUniqueTransID {
		t.Errorf("config = %+v", cfg)
	}
	if !cfg.CreatedOn.Equal(t0) || cfg.CreatedOn.Location() != time.UTC || !cfg.LastHeartbeat.Equal(t0) {
		t.Errorf("dates: created %v heartbeat %v, want %v", cfg.CreatedOn, cfg.LastHeartbeat, t0)
	}
	emu, ok := cfg.Device("EMULATOR")
	if !ok || emu.DeviceType != "Emulator" || emu.SerialNumber != "" || emu.RemoteConfigID != cfg.ID || emu.TCPPort != "10009" || !emu.IsDefault {
		t.Errorf("emulator = %+v", emu)
	}
	s300, ok := cfg.Device("COUNTER-S300")
	if !ok || s300.SerialNumber == "" || s300.DeviceType != "S300" || !s300.RequestSignature {
		t.Errorf("S300 = %+v", s300)
	}
	if d210, _ := cfg.Device("TABLE-D210"); !d210.PromptForTipOnTerminal {
		t.Errorf("D210 = %+v", d210)
	}

	for _, tc := range []struct {
		name string
		loc  terminals.Location
		want error
	}{
		{"wrong key", terminals.Location{ID: e.loc.ID, APIKey: "sbx_term_wrong"}, terminals.ErrUnauthorized},
		{"no key", terminals.Location{ID: e.loc.ID}, terminals.ErrInvalid},
		{"unknown location", terminals.Location{ID: "AAA-BBB-CCC", APIKey: e.loc.APIKey}, terminals.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := e.client.Config(ctx, tc.loc); !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSaleResultIsTyped(t *testing.T) {
	e := newEnv(t, nil)
	l := e.launch(t, e.loc, "COUNTER-S300", terminals.Sale(amount(t, "42.10"), "INV-7.1", "Ann"))
	if len(l.UniqueTransID) != 32 || !l.At.Equal(t0) {
		t.Errorf("launched = %+v", l)
	}
	r, err := e.await(e.loc, l)
	if err != nil {
		t.Fatal(err)
	}
	if !r.ResultStatus || r.Outcome() != terminals.OutcomeApproved || r.Duplicate() || r.ResultMessage != "APPROVED" {
		t.Errorf("status %v %q outcome %v", r.ResultStatus, r.ResultMessage, r.Outcome())
	}
	if r.UniqueTransID != l.UniqueTransID || r.RemoteTransactionID != l.UniqueTransID || r.TransactionType != "CreditSale" ||
		r.AmountProcessed != 4210 || r.AmountTipped != 0 || r.TransactionReference != "INV-7.1" || r.Cashier != "Ann" ||
		r.DeviceName != "COUNTER-S300" || r.SerialNumber == "" || r.MaskedAccount != "************4223" ||
		r.AccountCardType != "VS" || r.AccountExpiryDate != "1230" || r.AccountEntryMethod != "Chipped" ||
		len(r.ApprovalNumberResult) != 6 || r.TransactionID == "" || r.ExternalTransactionID == "" || r.BatchNumber == "" {
		t.Errorf("result = %+v", r)
	}
	// Ready 3 s after the launch; the local timestamp is read at UTC-5.
	ready := t0.Add(3 * time.Second)
	if r.ComputerTimeZoneOffset != -5 || !r.CreatedOn.Equal(ready) || !r.TerminalDateTime.Equal(ready) || !r.ComputerDateTime.Equal(ready) {
		t.Errorf("times: offset %d created %v, want %v", r.ComputerTimeZoneOffset, r.CreatedOn, ready)
	}
	if _, off := r.CreatedOn.Zone(); off != -5*3600 {
		t.Errorf("CreatedOn zone offset = %d", off)
	}
	if r.EMVReceipt == nil || r.EMVReceipt.AID != "A0000000031010" || r.EMVReceipt.ARC != "00" || r.EMVReceipt.CreatedOn == "" {
		t.Errorf("EMV receipt = %+v", r.EMVReceipt)
	}
}

func TestOutcomesByTestAmount(t *testing.T) {
	e := newEnv(t, nil)
	tests := []struct {
		amount  string
		tx      func(terminals.Amount) terminals.Transaction
		outcome terminals.Outcome
		masked  string
		after   time.Duration // from the launch to the result
	}{
		{"10.00", saleOf, terminals.OutcomeApproved, "************4223", 3 * time.Second},
		{"10.51", saleOf, terminals.OutcomeDeclined, "************4223", 3 * time.Second},
		{"10.52", saleOf, terminals.OutcomeCancelled, "", 3 * time.Second},
		{"10.53", saleOf, terminals.OutcomeTimedOut, "", 60 * time.Second},
		{"10.54", saleOf, terminals.OutcomeCardRemoved, "************4223", 3 * time.Second},
		{"10.61", saleOf, terminals.OutcomeApproved, "************4444", 3 * time.Second},
		{"10.62", saleOf, terminals.OutcomeApproved, "***********0005", 3 * time.Second},
		{"10.63", saleOf, terminals.OutcomeApproved, "************1117", 3 * time.Second},
		{"5.00", returnOf, terminals.OutcomeApproved, "************4223", 3 * time.Second},
		{"5.51", returnOf, terminals.OutcomeDeclined, "************4223", 3 * time.Second},
		{"5.52", returnOf, terminals.OutcomeCancelled, "", 3 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.amount, func(t *testing.T) {
			l := e.launch(t, e.loc, "EMULATOR", tc.tx(amount(t, tc.amount)))
			r, err := e.await(e.loc, l)
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome() != tc.outcome || r.MaskedAccount != tc.masked {
				t.Errorf("outcome %v (%q) card %q, want %v %q", r.Outcome(), r.ResultMessage, r.MaskedAccount, tc.outcome, tc.masked)
			}
			if got := r.CreatedOn.Sub(l.At); got != tc.after {
				t.Errorf("ready %v after the launch, want %v", got, tc.after)
			}
			if tc.outcome != terminals.OutcomeApproved && (r.AmountProcessed != 0 || r.ApprovalNumberResult != "") {
				t.Errorf("refused but processed %v with approval %q", r.AmountProcessed, r.ApprovalNumberResult)
			}
			if (r.EMVReceipt != nil) != (tc.outcome == terminals.OutcomeApproved || tc.outcome == terminals.OutcomeDeclined) {
				t.Errorf("EMV receipt %+v for %v", r.EMVReceipt, tc.outcome)
			}
		})
	}
}

func saleOf(a terminals.Amount) terminals.Transaction   { return terminals.Sale(a, "", "Ann") }
func returnOf(a terminals.Amount) terminals.Transaction { return terminals.Return(a, "", "Ann") }

func TestBusyAndOfflineDevices(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	first := e.launch(t, e.loc, "EMULATOR", terminals.Sale(1000, "A", ""))
	_, err := e.client.Launch(ctx, e.loc, "EMULATOR", terminals.Sale(2000, "B", ""))
	var ce *terminals.Error
	if !errors.Is(err, terminals.ErrDeviceBusy) || errors.Is(err, terminals.ErrOutcomeUnknown) || !errors.As(err, &ce) ||
		!strings.Contains(ce.Message, "busy") || ce.Status != "Conflict" {
		t.Errorf("second launch on a busy device: %v", err)
	}
	// Another device is free; the first finishes and frees its own.
	e.launch(t, e.loc, "TABLE-D210", terminals.Sale(500, "C", ""))
	if _, err := e.await(e.loc, first); err != nil {
		t.Fatal(err)
	}
	e.launch(t, e.loc, "EMULATOR", terminals.Sale(2000, "B", ""))

	e.setDevice(t, "COUNTER-S300", map[string]any{"online": false})
	_, err = e.client.Launch(ctx, e.loc, "COUNTER-S300", terminals.Sale(1000, "D", ""))
	if !errors.Is(err, terminals.ErrUnavailable) || errors.Is(err, terminals.ErrOutcomeUnknown) || !strings.Contains(err.Error(), "offline") {
		t.Errorf("launch on an offline device: %v", err)
	}
	_, err = e.client.Launch(ctx, e.loc, "NOPE", terminals.Sale(1000, "D", ""))
	if !errors.Is(err, terminals.ErrNotFound) {
		t.Errorf("unknown device: %v", err)
	}

	// With every device offline the controller's heartbeat stops.
	e.setDevice(t, "EMULATOR", map[string]any{"online": false})
	e.setDevice(t, "TABLE-D210", map[string]any{"online": false})
	stopped := e.clock.Now()
	e.clock.Advance(5 * time.Minute)
	cfg, err := e.client.Config(ctx, e.loc)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.LastHeartbeat.Equal(stopped.Truncate(time.Millisecond)) {
		t.Errorf("heartbeat %v, want frozen at %v", cfg.LastHeartbeat, stopped)
	}
}

func TestShortUniqueIDs(t *testing.T) {
	e := newEnv(t, nil)
	loc := e.newLocation(t, map[string]any{"name": "Kiosk", "applicationId": "app-1", "useShortUniqueTransId": true})
	cfg, err := e.client.Config(context.Background(), loc)
	if err != nil || !cfg.UseShortUniqueTransID {
		t.Fatalf("config %+v: %v", cfg, err)
	}
	l := e.launch(t, loc, "EMULATOR", terminals.Sale(1234, "S-1", ""))
	if len(l.UniqueTransID) != 10 {
		t.Errorf("id %q, want 10 characters", l.UniqueTransID)
	}
	r, err := e.await(loc, l)
	if err != nil {
		t.Fatal(err)
	}
	if r.UniqueTransID != l.UniqueTransID || len(r.RemoteTransactionID) != 32 || !strings.HasPrefix(r.RemoteTransactionID, l.UniqueTransID) {
		t.Errorf("ids: unique %q remote %q", r.UniqueTransID, r.RemoteTransactionID)
	}
	// A void by the short id works on another device of the location.
	void, err := e.await(loc, e.launch(t, loc, "COUNTER-S300", terminals.VoidOf(l.UniqueTransID, "S-1", "")))
	if err != nil || !void.ResultStatus || void.AmountProcessed != 1234 {
		t.Errorf("void by short id: %+v %v", void, err)
	}
}

func TestAPIKeyOnTransactions(t *testing.T) {
	e := newEnv(t, nil)
	// The public client sends no key on the launch and the read: accepted.
	keyless := terminals.Location{ID: e.loc.ID, TestMode: true}
	if _, err := e.await(keyless, e.launch(t, keyless, "EMULATOR", terminals.Sale(100, "", ""))); err != nil {
		t.Errorf("keyless: %v", err)
	}
	wrong := terminals.Location{ID: e.loc.ID, APIKey: "sbx_term_wrong", TestMode: true}
	if _, err := e.client.Launch(context.Background(), wrong, "EMULATOR", terminals.Sale(100, "", "")); !errors.Is(err, terminals.ErrUnauthorized) {
		t.Errorf("wrong key: %v", err)
	}
	if strings.Contains(e.logs.String(), e.loc.APIKey) || strings.Contains(e.logs.String(), "sbx_term_") {
		t.Error("the logs hold an API key")
	}
	for _, want := range []string{"op=launch", "path=/transaction.json", "op=result", "status=200", "duration="} {
		if !strings.Contains(e.logs.String(), want) {
			t.Errorf("logs lack %q", want)
		}
	}
}

func TestTestMode(t *testing.T) {
	e := newEnv(t, nil)
	live := e.loc
	live.TestMode = false
	_, err := e.client.Launch(context.Background(), live, "EMULATOR", terminals.Sale(100, "", ""))
	if !errors.Is(err, terminals.ErrRejected) || !strings.Contains(err.Error(), "TestMode true") {
		t.Errorf("TestMode false on a test location: %v", err)
	}
	prod := e.newLocation(t, map[string]any{"name": "Live shop", "production": true})
	if prod.TestMode {
		t.Fatal("production location came back as a test one")
	}
	if r, err := e.await(prod, e.launch(t, prod, "EMULATOR", terminals.Sale(100, "", ""))); err != nil || !r.ResultStatus {
		t.Errorf("TestMode false on a production location: %v", err)
	}
}

func TestClientRefusesIncompleteTransactions(t *testing.T) {
	e := newEnv(t, nil)
	before := e.requests()
	for _, tx := range []terminals.Transaction{
		terminals.Sale(0, "", ""), terminals.VoidOf("", "", ""), terminals.AddTip("", 100, "", ""),
		{Type: "DebitSale"},
	} {
		var fe *terminals.FieldError
		if _, err := e.client.Launch(context.Background(), e.loc, "EMULATOR", tx); !errors.Is(err, terminals.ErrInvalid) || !errors.As(err, &fe) {
			t.Errorf("%+v: err = %v", tx, err)
		}
	}
	if e.requests() != before {
		t.Error("an invalid transaction was sent")
	}
}
