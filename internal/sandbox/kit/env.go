package kit

import (
	"log/slog"
	"net/http"
)

// Env is what the sandbox server hands every area: one clock, one fault
// injector, one store, one logger and one admin guard for all of them.
type Env struct {
	Clock  Clock
	Faults *Injector
	Store  *Store
	Log    *slog.Logger
	Admin  AdminGuard
	// PublicURL returns the scheme://host[:port] at which clients and
	// browsers reach the sandbox ("" until known: use the request's host).
	PublicURL func() string
}

// BaseURL returns the public URL, or the scheme and host the request came
// to when none is set.
func (e Env) BaseURL(r *http.Request) string {
	if e.PublicURL != nil {
		if u := e.PublicURL(); u != "" {
			return u
		}
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// Merchant is a boarded application, handed from the account application
// area to the areas that provision its payment account and terminal
// location, as the operator's integration specialists would.
type Merchant struct {
	ApplicationID         string `json:"applicationId"`
	ExternalApplicationID string `json:"externalApplicationId"`
	Name                  string `json:"name"` // DBA, else legal name
}

// PaymentCredentials are a merchant's direct payment API (area B)
// credentials: its account id and bearer JWT.
type PaymentCredentials struct {
	OID   string `json:"oid"`
	Token string `json:"token"`
}

// TerminalLocation is one terminal cloud (area C) location of a merchant.
type TerminalLocation struct {
	LocationID string `json:"locationId"`
	Name       string `json:"name"`
}

// TerminalCredentials are a merchant's terminal cloud API key and its
// locations.
type TerminalCredentials struct {
	APIKey    string             `json:"apiKey"`
	Locations []TerminalLocation `json:"locations"`
}
