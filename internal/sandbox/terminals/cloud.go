package terminals

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// apiKeyHeader carries the merchant's API key.
const apiKeyHeader = "x-apikey"

// keyKnown reports whether key was issued.
func keyKnown(tx *bolt.Tx, key string) bool {
	return key != "" && tx.Bucket([]byte(bucketKeys)).Get([]byte(key)) != nil
}

// sameKey compares API keys in constant time.
func sameKey(given, want string) bool {
	return subtle.ConstantTimeCompare([]byte(given), []byte(want)) == 1
}

// wireConfig is the configuration download's Result.
type wireConfig struct {
	ID                    string       `json:"Id"`
	LocationID            string       `json:"LocationId"`
	LocationKey           int          `json:"LocationKey"`
	Devices               []wireDevice `json:"Devices"`
	ControllerName        string       `json:"ControllerName"`
	CreatedOn             string       `json:"CreatedOn"`
	IsActive              bool         `json:"IsActive"`
	LastHeartbeat         string       `json:"LastHeartbeat"`
	Level2Enabled         bool         `json:"Level2Enabled"`
	UseShortUniqueTransID bool         `json:"UseShortUniqueTransId"`
}

type wireDevice struct {
	ID                     string `json:"Id"`
	RemoteConfigID         string `json:"RemoteConfigId"`
	DeviceName             string `json:"DeviceName"`
	DeviceType             string `json:"DeviceType"`
	IPAddress              string `json:"IpAddress"`
	TCPPort                string `json:"TcpPort"`
	RequestSignature       bool   `json:"RequestSignature"`
	MandatorySignature     bool   `json:"MandatorySignature"`
	IsDefault              bool   `json:"IsDefault"`
	UseTokenArmor          bool   `json:"UseTokenArmor"`
	PromptForTipOnTerminal bool   `json:"PromptForTipOnTerminal"`
	IsActive               bool   `json:"IsActive"`
	CreatedOn              string `json:"CreatedOn"`
	SerialNumber           string `json:"SerialNumber,omitempty"` // absent on emulators
	IsDeleted              bool   `json:"IsDeleted"`
}

// handleConfig serves GET /Config/{locationId}: the x-apikey header is
// required (401 without or with an unknown key); a location of another key
// is as unknown as a missing one (404).
func (a *Area) handleConfig(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get(apiKeyHeader)
	id := r.PathValue("locationId")
	var l *location
	status := http.StatusOK
	err := a.env.Store.DB.View(func(tx *bolt.Tx) error {
		if !keyKnown(tx, key) {
			status = http.StatusUnauthorized
			return nil
		}
		var err error
		l, err = getLocation(tx, id)
		if errors.Is(err, kit.ErrNotFound) || (err == nil && !sameKey(key, l.APIKey)) {
			status = http.StatusNotFound
			return nil
		}
		return err
	})
	switch {
	case err != nil:
		a.env.Log.Error("terminal config read failed", "err", err)
		writeError(w, http.StatusInternalServerError, "The configuration could not be read.")
	case status == http.StatusUnauthorized && key == "":
		writeError(w, status, "The %s header is required.", apiKeyHeader)
	case status == http.StatusUnauthorized:
		writeError(w, status, "The API key is not valid.")
	case status == http.StatusNotFound:
		writeError(w, status, "Location %q was not found.", id)
	default:
		writeOK(w, a.configOf(l))
	}
}

// configOf builds the configuration of l as the cloud sends it.
func (a *Area) configOf(l *location) wireConfig {
	now := a.env.Clock.Now()
	c := wireConfig{
		ID: l.ConfigID, LocationID: l.LocationID, LocationKey: l.LocationKey, ControllerName: l.ControllerName,
		CreatedOn: cloudDate(l.CreatedOn), IsActive: true, LastHeartbeat: cloudDate(l.heartbeat(now)),
		Level2Enabled: l.Level2, UseShortUniqueTransID: l.ShortIDs, Devices: []wireDevice{},
	}
	for _, d := range l.Devices {
		c.Devices = append(c.Devices, wireDevice{
			ID: d.ID, RemoteConfigID: l.ConfigID, DeviceName: d.Name, DeviceType: d.Type, IPAddress: d.IPAddress,
			TCPPort: d.TCPPort, RequestSignature: d.RequestSignature, IsDefault: d.IsDefault,
			PromptForTipOnTerminal: d.PromptForTip, IsActive: true, CreatedOn: cloudDate(d.CreatedOn),
			SerialNumber: d.SerialNumber,
		})
	}
	return c
}

// handleResult serves GET /transactionresult/{uniqueTransId}: 404 for an
// unknown id, "Pending" until the cardholder has finished, then the
// result. An x-apikey header is not needed; one that is sent must be the
// location's.
func (a *Area) handleResult(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("uniqueTransId")
	key := r.Header.Get(apiKeyHeader)
	var t *transaction
	var l *location
	err := a.env.Store.DB.View(func(tx *bolt.Tx) error {
		var err error
		if t, err = getTransaction(tx, id); err != nil {
			return err
		}
		l, err = getLocation(tx, t.LocationID)
		return err
	})
	switch {
	case errors.Is(err, kit.ErrNotFound):
		writeError(w, http.StatusNotFound, "Transaction %q was not found.", id)
	case err != nil:
		a.env.Log.Error("terminal result read failed", "err", err)
		writeError(w, http.StatusInternalServerError, "The result could not be read.")
	case key != "" && !sameKey(key, l.APIKey):
		writeError(w, http.StatusUnauthorized, "The API key is not valid for this transaction.")
	case !t.ready(a.env.Clock.Now()):
		writePending(w)
	default:
		writeOK(w, a.resultOf(l, t))
	}
}

// cloudDate writes a configuration date, /Date(<epoch ms>-0000)/.
func cloudDate(t time.Time) string {
	return "/Date(" + strconv.FormatInt(t.UnixMilli(), 10) + "-0000)/"
}
