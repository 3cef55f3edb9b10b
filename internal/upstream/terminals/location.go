package terminals

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// LocationConfig is a location's configuration with its devices, as the
// cloud's device-list download returns it. The cloud reports no device
// status: LastHeartbeat is the controller's last contact.
type LocationConfig struct {
	ID                    string // the configuration's id; devices' RemoteConfigID
	LocationID            string
	LocationKey           int
	Devices               []Device
	ControllerName        string
	CreatedOn             time.Time // UTC
	IsActive              bool
	LastHeartbeat         time.Time // UTC; zero when never
	Level2Enabled         bool
	UseShortUniqueTransID bool
}

// Device is one terminal at a location. DeviceName selects it in launches.
type Device struct {
	ID                     string
	RemoteConfigID         string
	DeviceName             string
	DeviceType             string // model label, e.g. S300, D210, Emulator
	IPAddress              string
	TCPPort                string
	RequestSignature       bool
	MandatorySignature     bool
	IsDefault              bool
	UseTokenArmor          bool
	PromptForTipOnTerminal bool
	IsActive               bool
	CreatedOn              time.Time // UTC
	SerialNumber           string    // empty on emulators
	IsDeleted              bool
}

// wireConfig is the configuration as sent.
type wireConfig struct {
	ID                    string       `json:"Id"`
	LocationID            string       `json:"LocationId"`
	LocationKey           flexInt      `json:"LocationKey"`
	Devices               []wireDevice `json:"Devices"`
	ControllerName        string       `json:"ControllerName"`
	CreatedOn             cloudDate    `json:"CreatedOn"`
	IsActive              flexBool     `json:"IsActive"`
	LastHeartbeat         cloudDate    `json:"LastHeartbeat"`
	Level2Enabled         flexBool     `json:"Level2Enabled"`
	UseShortUniqueTransID flexBool     `json:"UseShortUniqueTransId"`
}

type wireDevice struct {
	ID                     string    `json:"Id"`
	RemoteConfigID         string    `json:"RemoteConfigId"`
	DeviceName             string    `json:"DeviceName"`
	DeviceType             string    `json:"DeviceType"`
	IPAddress              string    `json:"IpAddress"`
	TCPPort                string    `json:"TcpPort"`
	RequestSignature       flexBool  `json:"RequestSignature"`
	MandatorySignature     flexBool  `json:"MandatorySignature"`
	IsDefault              flexBool  `json:"IsDefault"`
	UseTokenArmor          flexBool  `json:"UseTokenArmor"`
	PromptForTipOnTerminal flexBool  `json:"PromptForTipOnTerminal"`
	IsActive               flexBool  `json:"IsActive"`
	CreatedOn              cloudDate `json:"CreatedOn"`
	SerialNumber           string    `json:"SerialNumber"`
	IsDeleted              flexBool  `json:"IsDeleted"`
}

// Config downloads the configuration and device list of loc
// (GET /Config/{locationId} with the x-apikey header). It returns
// ErrUnauthorized for a missing or wrong key and ErrNotFound for an unknown
// location.
func (c *Client) Config(ctx context.Context, loc Location) (*LocationConfig, error) {
	if loc.ID == "" {
		return nil, &FieldError{Field: "LocationId", Message: "is required"}
	}
	if loc.APIKey == "" {
		return nil, &FieldError{Field: "x-apikey", Message: "the configuration download needs the API key"}
	}
	cl := call{op: "config", method: http.MethodGet, path: "/Config/" + url.PathEscape(loc.ID), apiKey: loc.APIKey, policy: retryReads}
	env, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	var w wireConfig
	if !bool(env.Success) || !env.hasResult() {
		return nil, &Error{Op: cl.op, Method: cl.method, Path: cl.path, StatusCode: int(env.StatusCode),
			Status: env.Status, Message: cmp.Or(env.message(), "answer carries no configuration")}
	}
	if err := json.Unmarshal(env.Result, &w); err != nil {
		return nil, &Error{Op: cl.op, Method: cl.method, Path: cl.path, StatusCode: http.StatusOK,
			Message: "configuration is not the expected JSON: " + err.Error()}
	}
	return w.config(), nil
}

// config converts the wire shape.
func (w wireConfig) config() *LocationConfig {
	cfg := &LocationConfig{
		ID: w.ID, LocationID: w.LocationID, LocationKey: int(w.LocationKey), ControllerName: w.ControllerName,
		CreatedOn: time.Time(w.CreatedOn), IsActive: bool(w.IsActive), LastHeartbeat: time.Time(w.LastHeartbeat),
		Level2Enabled: bool(w.Level2Enabled), UseShortUniqueTransID: bool(w.UseShortUniqueTransID),
		Devices: make([]Device, 0, len(w.Devices)),
	}
	for _, d := range w.Devices {
		cfg.Devices = append(cfg.Devices, Device{
			ID: d.ID, RemoteConfigID: d.RemoteConfigID, DeviceName: d.DeviceName, DeviceType: d.DeviceType,
			IPAddress: d.IPAddress, TCPPort: d.TCPPort, RequestSignature: bool(d.RequestSignature),
			MandatorySignature: bool(d.MandatorySignature), IsDefault: bool(d.IsDefault),
			UseTokenArmor: bool(d.UseTokenArmor), PromptForTipOnTerminal: bool(d.PromptForTipOnTerminal),
			IsActive: bool(d.IsActive), CreatedOn: time.Time(d.CreatedOn), SerialNumber: d.SerialNumber,
			IsDeleted: bool(d.IsDeleted),
		})
	}
	return cfg
}

// Device returns the device named name, or false.
func (l *LocationConfig) Device(name string) (Device, bool) {
	for _, d := range l.Devices {
		if d.DeviceName == name {
			return d, true
		}
	}
	return Device{}, false
}
