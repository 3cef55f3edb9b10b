package terminals

import (
	"errors"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// The admin's views of locations, devices and transactions, shared by the
// page and the JSON.

type locationView struct {
	LocationID            string       `json:"locationId"`
	Name                  string       `json:"name"`
	LocationKey           int          `json:"locationKey"`
	ConfigID              string       `json:"configId"`
	APIKey                string       `json:"apiKey"`
	ApplicationID         string       `json:"applicationId,omitempty"`
	Production            bool         `json:"production"`
	UseShortUniqueTransID bool         `json:"useShortUniqueTransId"`
	Level2Enabled         bool         `json:"level2Enabled"`
	CreatedOn             time.Time    `json:"createdOn"`
	LastHeartbeat         time.Time    `json:"lastHeartbeat"`
	Devices               []deviceView `json:"devices"`
}

type deviceView struct {
	Name               string     `json:"name"`
	Type               string     `json:"type"`
	SerialNumber       string     `json:"serialNumber,omitempty"`
	IsDefault          bool       `json:"isDefault"`
	Online             bool       `json:"online"`
	Busy               bool       `json:"busy"`
	BusyUntil          *time.Time `json:"busyUntil,omitempty"`
	BusyWith           string     `json:"busyWith,omitempty"`
	DuplicateDetection bool       `json:"duplicateDetection"`
	NextCard           string     `json:"nextCard,omitempty"`
}

type transactionView struct {
	UniqueTransID       string      `json:"uniqueTransId"`
	RemoteTransactionID string      `json:"remoteTransactionId"`
	LocationID          string      `json:"locationId"`
	DeviceName          string      `json:"deviceName"`
	Type                string      `json:"transactionType"`
	TokenSale           bool        `json:"tokenSale,omitempty"`
	Amount              string      `json:"amount,omitempty"`
	TransactionRef      string      `json:"transactionRef"`
	Cashier             string      `json:"cashier"`
	UniqueTransRef      string      `json:"uniqueTransRef,omitempty"`
	TestMode            bool        `json:"testMode"`
	LaunchedAt          time.Time   `json:"launchedAt"`
	ReadyAt             time.Time   `json:"readyAt"`
	Ready               bool        `json:"ready"`
	Approved            bool        `json:"approved"`
	ResultMessage       string      `json:"resultMessage"`
	ApprovalNumber      string      `json:"approvalNumber,omitempty"`
	MaskedAccount       string      `json:"maskedAccount,omitempty"`
	FromLogFile         bool        `json:"fromLogFile,omitempty"`
	Original            string      `json:"original,omitempty"`
	Charge              *chargeView `json:"charge,omitempty"`
}

type chargeView struct {
	SaleAmount string `json:"saleAmount"`
	Total      string `json:"total"`
	Tip        string `json:"tip"`
	VoidedBy   string `json:"voidedBy,omitempty"`
}

func (a *Area) locationViewOf(l *location, now time.Time) locationView {
	v := locationView{
		LocationID: l.LocationID, Name: l.Name, LocationKey: l.LocationKey, ConfigID: l.ConfigID, APIKey: l.APIKey,
		ApplicationID: l.ApplicationID, Production: l.Production, UseShortUniqueTransID: l.ShortIDs,
		Level2Enabled: l.Level2, CreatedOn: l.CreatedOn, LastHeartbeat: l.heartbeat(now).UTC(), Devices: []deviceView{},
	}
	for _, d := range l.Devices {
		dv := deviceView{Name: d.Name, Type: d.Type, SerialNumber: d.SerialNumber, IsDefault: d.IsDefault,
			Online: !d.Offline, Busy: d.busy(now), DuplicateDetection: d.DuplicateDetection, NextCard: d.NextCard}
		if dv.Busy {
			until := d.BusyUntil
			dv.BusyUntil, dv.BusyWith = &until, d.BusyWith
		}
		v.Devices = append(v.Devices, dv)
	}
	return v
}

func transactionViewOf(t *transaction, now time.Time) transactionView {
	v := transactionView{
		UniqueTransID: t.ID, RemoteTransactionID: t.RemoteID, LocationID: t.LocationID, DeviceName: t.DeviceName,
		Type: t.Type, TokenSale: t.TokenSale, TransactionRef: t.Ref, Cashier: t.Cashier, UniqueTransRef: t.UniqueTransRef,
		TestMode: t.TestMode, LaunchedAt: t.LaunchedAt, ReadyAt: t.ReadyAt, Ready: t.ready(now),
		Approved: t.Outcome.Approved, ResultMessage: t.Outcome.Message, ApprovalNumber: t.Outcome.ApprovalNumber,
		FromLogFile: t.Outcome.FromLogFile, Original: t.Outcome.Original,
	}
	if t.Amount != 0 {
		v.Amount = t.Amount.String()
	}
	if c, ok := cardByKey(t.Outcome.Card); ok {
		v.MaskedAccount = c.Masked
	}
	if c := t.Charge; c != nil {
		v.Charge = &chargeView{SaleAmount: c.SaleAmount.String(), Total: c.Total.String(), Tip: c.Tip.String(), VoidedBy: c.VoidedBy}
	}
	return v
}

// adminError is an admin request refused: 400, 404.
type adminError struct {
	status int
	msg    string
}

func (e *adminError) Error() string { return e.msg }

// createLocationRequest is the admin's new location.
type createLocationRequest struct {
	Name                  string `json:"name"`
	ApplicationID         string `json:"applicationId"`
	Production            bool   `json:"production"`
	UseShortUniqueTransID bool   `json:"useShortUniqueTransId"`
	Level2Enabled         bool   `json:"level2Enabled"`
}

// adminCreateLocation stores a location the admin asked for.
func (a *Area) adminCreateLocation(req createLocationRequest) (locationView, error) {
	name := strings.TrimSpace(req.Name)
	if name == "" || len(name) > 80 {
		return locationView{}, &adminError{400, "name: required, at most 80 characters"}
	}
	var l *location
	err := a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		var err error
		l, err = a.createLocation(tx, locationSpec{Name: name, ApplicationID: strings.TrimSpace(req.ApplicationID),
			Production: req.Production, ShortIDs: req.UseShortUniqueTransID, Level2: req.Level2Enabled})
		return err
	})
	if err != nil {
		return locationView{}, err
	}
	a.env.Log.Info("terminal location created by the admin", "location_id", l.LocationID, "production", l.Production)
	return a.locationViewOf(l, a.env.Clock.Now()), nil
}

// deviceUpdate is the admin's change to a device; nil fields stay.
type deviceUpdate struct {
	Online             *bool   `json:"online"`
	DuplicateDetection *bool   `json:"duplicateDetection"`
	NextCard           *string `json:"nextCard"`
}

// adminUpdateDevice applies u to a device.
func (a *Area) adminUpdateDevice(locationID, name string, u deviceUpdate) (deviceView, error) {
	if u.NextCard != nil && *u.NextCard != "" {
		if _, ok := cardByKey(*u.NextCard); !ok {
			return deviceView{}, &adminError{400, fmt.Sprintf("nextCard: must be one of %s, or empty", strings.Join(cardKeys(), ", "))}
		}
	}
	now := a.env.Clock.Now()
	var view locationView
	err := a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		l, err := getLocation(tx, locationID)
		if errors.Is(err, kit.ErrNotFound) {
			return &adminError{404, "location not found"}
		}
		if err != nil {
			return err
		}
		d := l.device(name)
		if d == nil {
			return &adminError{404, "device not found"}
		}
		if u.Online != nil {
			d.Offline = !*u.Online
		}
		if u.DuplicateDetection != nil {
			d.DuplicateDetection = *u.DuplicateDetection
		}
		if u.NextCard != nil {
			d.NextCard = *u.NextCard
		}
		l.SilentSince = silentSince(l, now)
		view = a.locationViewOf(l, now)
		return putLocation(tx, l)
	})
	if err != nil {
		return deviceView{}, err
	}
	for _, d := range view.Devices {
		if d.Name == name {
			return d, nil
		}
	}
	return deviceView{}, errors.New("device vanished")
}

// silentSince keeps the time the last device went offline, or zero while
// any is online.
func silentSince(l *location, now time.Time) time.Time {
	for _, d := range l.Devices {
		if !d.Offline {
			return time.Time{}
		}
	}
	if l.SilentSince.IsZero() {
		return now.UTC()
	}
	return l.SilentSince
}

func cardKeys() []string {
	keys := make([]string, 0, len(testCards))
	for _, c := range testCards {
		keys = append(keys, c.Key)
	}
	return keys
}

// overview reads the locations and, with limit above 0, the newest
// transactions.
func (a *Area) overview(locationID string, limit int) ([]locationView, []transactionView, error) {
	now := a.env.Clock.Now()
	var locs []locationView
	var txs []transactionView
	err := a.env.Store.DB.View(func(tx *bolt.Tx) error {
		all, err := allLocations(tx)
		if err != nil {
			return err
		}
		for _, l := range all {
			if locationID == "" || l.LocationID == locationID {
				locs = append(locs, a.locationViewOf(l, now))
			}
		}
		if limit == 0 {
			return nil
		}
		recent, err := recentTransactions(tx, locationID, limit)
		for _, t := range recent {
			txs = append(txs, transactionViewOf(t, now))
		}
		return err
	})
	return locs, txs, err
}
