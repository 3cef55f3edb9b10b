// Package payments is the sandbox's direct payment API (area B of the
// specification): merchant accounts with their own JWT, every card and ACH
// operation of the specification and of the vendor's published client,
// test cards that drive outcomes, a vault that keeps no card number,
// settlement at a daily cut-off, the void and review rules, idempotency,
// a per-account rate limit, faults including "act, then drop", and an
// admin page and JSON API. README.md in this folder documents it all,
// including every choice made where the specification is silent.
package payments

import (
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// The area's buckets in the shared store.
const (
	bucketMeta         = "payments.meta"
	bucketAccounts     = "payments.accounts"
	bucketByApp        = "payments.byApplication"
	bucketTransactions = "payments.transactions" // oid/uniqueTransId
	bucketByExternal   = "payments.byExternal"   // oid/externalTransactionId → uniqueTransId
	bucketIdempotency  = "payments.idempotency"  // oid/key
	bucketVault        = "payments.vault"        // token
	bucketFingerprints = "payments.fingerprints" // oid/fingerprint → token
	bucketBatches      = "payments.batches"      // oid/number
)

// faultArea is the name the area draws faults under.
const faultArea = "payments"

//go:embed templates/*.html
var templateFS embed.FS

// Area is the direct payment API of the sandbox. It is safe for concurrent
// use.
type Area struct {
	env     kit.Env
	opts    Options
	key     []byte
	pages   *kit.Pages
	limiter *limiter
	// hook, when set by a test, is called at named points of a write.
	hook func(stage string)
}

// New builds the area on env's store, clock, faults and logger.
func New(env kit.Env, opts Options) (*Area, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if env.Store == nil || env.Clock == nil || env.Faults == nil {
		return nil, errors.New("payments sandbox: the environment needs a store, a clock and faults")
	}
	if env.Log == nil {
		env.Log = slog.New(slog.DiscardHandler)
	}
	a := &Area{env: env, opts: opts, limiter: newLimiter(opts.RateLimit, opts.RateWindow, opts.WallClock)}
	if err := env.Store.Buckets(bucketMeta, bucketAccounts, bucketByApp, bucketTransactions, bucketByExternal,
		bucketIdempotency, bucketVault, bucketFingerprints, bucketBatches); err != nil {
		return nil, fmt.Errorf("payments sandbox: %w", err)
	}
	if a.key, err = a.signingKey(opts.SigningKey); err != nil {
		return nil, err
	}
	a.pages, err = kit.NewPages(kit.PageSet{
		Product: "Direct payment", Banner: "a rehearsal of the processor's direct payment API", Admin: true,
		Files: templateFS, Names: []string{"admin"}, Funcs: pageFuncs,
	})
	if err != nil {
		return nil, fmt.Errorf("payments sandbox: %w", err)
	}
	return a, nil
}

// signingKey returns the key given, or the one kept in the store, or a new
// one it keeps there.
func (a *Area) signingKey(given []byte) ([]byte, error) {
	if len(given) > 0 {
		return given, nil
	}
	var key []byte
	err := a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucketMeta))
		if k := b.Get([]byte("signingKey")); k != nil {
			key = append([]byte(nil), k...)
			return nil
		}
		key = make([]byte, 32)
		_, _ = rand.Read(key)
		return b.Put([]byte("signingKey"), key)
	})
	if err != nil {
		return nil, fmt.Errorf("payments sandbox: signing key: %w", err)
	}
	return key, nil
}

// Close releases nothing of its own: the store belongs to the server.
func (a *Area) Close() error { return nil }

// Mount adds the area's routes to mux. Reading it gives the site map.
func (a *Area) Mount(mux *http.ServeMux) {
	api := a.opts.BasePath + "/orgs/{oid}/transactions/"
	// The API: one pattern per depth, any method, so a wrong method gets
	// the API's JSON 405 rather than the mux's plain text.
	mux.Handle(api+"{name}", kit.SecurityHeaders(a.serveAPI(false)))
	mux.Handle(api+"ach/{name}", kit.SecurityHeaders(a.serveAPI(true)))

	// Admin page and forms (admin token; same-origin posts).
	g, same := a.env.Admin, func(h http.HandlerFunc) http.HandlerFunc { return kit.SameOrigin(a.env.PublicURL, h) }
	mux.Handle("GET /_sandbox/admin/payments", kit.SecurityHeaders(g.Wrap(a.handleAdminPage)))
	mux.Handle("POST /_sandbox/admin/payments/accounts", kit.SecurityHeaders(g.Wrap(same(a.handleAdminCreateForm))))
	mux.Handle("POST /_sandbox/admin/payments/settle", kit.SecurityHeaders(g.Wrap(same(a.handleAdminSettleForm))))
	mux.Handle("POST /_sandbox/admin/payments/transactions/{id}/achReturn", kit.SecurityHeaders(g.Wrap(same(a.handleAdminReturnForm))))

	// Admin JSON API (sandbox-only: nothing of it exists upstream).
	adm := "/_sandbox/admin/api/payments/"
	mux.HandleFunc("GET "+adm+"accounts", g.Wrap(a.handleAdminAccountsJSON))
	mux.HandleFunc("POST "+adm+"accounts", g.Wrap(same(a.handleAdminCreateJSON)))
	mux.HandleFunc("GET "+adm+"accounts/{oid}", g.Wrap(a.handleAdminAccountJSON))
	mux.HandleFunc("GET "+adm+"transactions", g.Wrap(a.handleAdminTransactionsJSON))
	mux.HandleFunc("GET "+adm+"batches", g.Wrap(a.handleAdminBatchesJSON))
	mux.HandleFunc("POST "+adm+"settle", g.Wrap(same(a.handleAdminSettleJSON)))
	mux.HandleFunc("POST "+adm+"transactions/{id}/achReturn", g.Wrap(same(a.handleAdminReturnJSON)))
}
