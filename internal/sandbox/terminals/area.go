// Package terminals is the sandbox's terminal cloud (area C of the
// specification): locations with an emulated terminal and two modelled
// ones, the configuration download, the launch of transactions and the
// reading of their results, with an emulated cardholder on the sandbox's
// clock, the rules of the specification (device selection, tips, duplicate
// detection, voids, saved cards, short ids) and admin controls. See
// README.md for every route, test amount and choice.
package terminals

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// Defaults of Options.
const (
	DefaultCardholderDelay = 3 * time.Second
	DefaultHostDelay       = time.Second
	DefaultTerminalTimeout = 60 * time.Second
)

// faultArea is the name of the area for the fault injector.
const faultArea = "terminals"

// Options configures the area. Zero values take the defaults.
type Options struct {
	// CardholderDelay is how long the emulated cardholder takes at the
	// terminal before a card-present transaction (sale, return, save
	// card) has its result. Default 3 s on the sandbox clock.
	CardholderDelay time.Duration
	// HostDelay is how long a transaction without a card (token sale, void,
	// tip) takes. Default 1 s.
	HostDelay time.Duration
	// TerminalTimeout is how long a terminal waits for a card before it
	// gives up (the timeout test amount). Default 60 s.
	TerminalTimeout time.Duration
	// TimeZone is the zone of the location computers: the results' local
	// timestamps and ComputerTimeZoneOffset. Default US Eastern standard
	// time, a fixed UTC-5.
	TimeZone *time.Location
}

// Settings are the delays of the emulated terminals, changeable at run time
// by the admin.
type Settings struct {
	CardholderDelay time.Duration
	HostDelay       time.Duration
	TerminalTimeout time.Duration
}

// validate refuses negative delays and a timeout shorter than the
// cardholder.
func (s Settings) validate() error {
	if s.CardholderDelay < 0 || s.HostDelay < 0 || s.TerminalTimeout < 0 {
		return errors.New("delays cannot be negative")
	}
	return nil
}

// Area is the terminal cloud of the sandbox.
type Area struct {
	env   kit.Env
	zone  *time.Location
	pages *kit.Pages

	mu       sync.Mutex
	settings Settings
}

// Buckets of the area in the shared store.
const (
	bucketLocations    = "terminals.locations"
	bucketTransactions = "terminals.transactions"
	bucketMerchants    = "terminals.merchants"
	bucketKeys         = "terminals.keys"
)

// New builds the area on env, creating its buckets.
func New(env kit.Env, opts Options) (*Area, error) {
	if env.Clock == nil || env.Store == nil || env.Faults == nil || env.Log == nil {
		return nil, errors.New("terminals sandbox: the env needs a clock, a store, a fault injector and a logger")
	}
	s := Settings{
		CardholderDelay: or(opts.CardholderDelay, DefaultCardholderDelay),
		HostDelay:       or(opts.HostDelay, DefaultHostDelay),
		TerminalTimeout: or(opts.TerminalTimeout, DefaultTerminalTimeout),
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("terminals sandbox: %w", err)
	}
	zone := opts.TimeZone
	if zone == nil {
		zone = time.FixedZone("EST", -5*3600)
	}
	if err := env.Store.Buckets(bucketLocations, bucketTransactions, bucketMerchants, bucketKeys); err != nil {
		return nil, fmt.Errorf("terminals sandbox: %w", err)
	}
	pages, err := newPages()
	if err != nil {
		return nil, err
	}
	return &Area{env: env, zone: zone, pages: pages, settings: s}, nil
}

// or returns v, or def when v is zero.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Settings returns the delays in force.
func (a *Area) Settings() Settings {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.settings
}

// SetSettings replaces the delays; transactions already launched keep
// theirs.
func (a *Area) SetSettings(s Settings) error {
	if err := s.validate(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.settings = s
	return nil
}

// Mount adds the area's routes to mux: the cloud at the sandbox's root,
// the admin page and JSON under /_sandbox/admin.
func (a *Area) Mount(mux *http.ServeMux) {
	h := func(f http.HandlerFunc) http.Handler { return kit.SecurityHeaders(f) }
	admin := func(f http.HandlerFunc) http.Handler { return h(a.env.Admin.Wrap(f)) }
	form := func(f http.HandlerFunc) http.Handler { return admin(kit.SameOrigin(a.env.PublicURL, f)) }

	// The cloud (faults apply).
	mux.Handle("GET /Config/{locationId}", h(a.cloud(a.handleConfig, false)))
	mux.Handle("POST /transaction.json", h(a.cloud(a.handleLaunch, true)))
	mux.Handle("GET /transactionresult/{uniqueTransId}", h(a.cloud(a.handleResult, false)))

	// The admin page and its forms.
	mux.Handle("GET /_sandbox/admin/terminals", admin(a.handleAdminPage))
	mux.Handle("POST /_sandbox/admin/terminals/locations", form(a.handleAdminCreateForm))
	mux.Handle("POST /_sandbox/admin/terminals/locations/{locationId}/devices/{deviceName}", form(a.handleAdminDeviceForm))
	mux.Handle("POST /_sandbox/admin/terminals/settings", form(a.handleAdminSettingsForm))

	// The admin JSON.
	const api = "/_sandbox/admin/api/terminals"
	mux.Handle("GET "+api+"/locations", admin(a.apiListLocations))
	mux.Handle("POST "+api+"/locations", admin(a.apiCreateLocation))
	mux.Handle("GET "+api+"/locations/{locationId}", admin(a.apiGetLocation))
	mux.Handle("PATCH "+api+"/locations/{locationId}/devices/{deviceName}", admin(a.apiUpdateDevice))
	mux.Handle("GET "+api+"/transactions", admin(a.apiListTransactions))
	mux.Handle("GET "+api+"/transactions/{uniqueTransId}", admin(a.apiGetTransaction))
	mux.Handle("GET "+api+"/settings", admin(a.apiGetSettings))
	mux.Handle("PUT "+api+"/settings", admin(a.apiPutSettings))
}

// Close releases nothing of its own: the store belongs to the server. It
// exists so the server closes every area alike.
func (a *Area) Close() error { return nil }
