// Package apikeys holds the keys of the partner API: the api_keys table, creating a
// key (its secret shown once, only its SHA-256 kept), listing and revoking keys, and
// authenticating a request's key into a Principal, the one answer other rooms ask
// "may this key see this rep's objects" (Principal.MaySee, Scope.Covers).
//
// A key acts as one sales rep (it sees and owns only that rep's applications and
// merchants, and stops working when the rep is deactivated) or for the whole
// reseller; it reads only, or reads and writes. Authenticate reads the key and its
// rep from Postgres on every request, so a revocation or a deactivation holds on
// every replica at once; there is no cache to invalidate.
package apikeys
