package payments

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// Account is one merchant account of the direct payment API, with the
// credentials the operator's integration specialists would hand over.
type Account struct {
	OID                   string    `json:"oid"`
	Name                  string    `json:"name"`
	ApplicationID         string    `json:"applicationId,omitempty"`
	ExternalApplicationID string    `json:"externalApplicationId,omitempty"`
	Token                 string    `json:"token"`
	CreatedAt             time.Time `json:"createdAt"`
	// Batch is the number of the open batch; BatchOpenedAt when it opened.
	Batch         int       `json:"batch"`
	BatchOpenedAt time.Time `json:"batchOpenedAt"`
}

// Credentials returns the account's API credentials.
func (a Account) Credentials() kit.PaymentCredentials {
	return kit.PaymentCredentials{OID: a.OID, Token: a.Token}
}

// issuer is the iss claim of the accounts' tokens.
const issuer = "payments-sandbox"

// claims are a token's claims: the account it is for.
type claims struct {
	OID string `json:"oid"`
	jwt.RegisteredClaims
}

// Provision opens the payment account of a boarded merchant, as the
// operator does at boarding. It is idempotent per m.ApplicationID: a repeat
// returns the same account.
func (a *Area) Provision(ctx context.Context, m kit.Merchant) (kit.PaymentCredentials, error) {
	if err := ctx.Err(); err != nil {
		return kit.PaymentCredentials{}, err
	}
	if strings.TrimSpace(m.ApplicationID) == "" {
		return kit.PaymentCredentials{}, errors.New("payments sandbox: provision needs an application id")
	}
	acct, err := a.createAccount(m)
	if err != nil {
		return kit.PaymentCredentials{}, err
	}
	a.env.Log.Info("payment account provisioned", "area", faultArea, "oid", acct.OID, "applicationId", m.ApplicationID)
	return acct.Credentials(), nil
}

// createAccount opens an account for m, or returns the one already open for
// m.ApplicationID.
func (a *Area) createAccount(m kit.Merchant) (Account, error) {
	var acct Account
	err := a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		if m.ApplicationID != "" {
			if oid := tx.Bucket([]byte(bucketByApp)).Get([]byte(m.ApplicationID)); oid != nil {
				return kit.Get(tx, bucketAccounts, string(oid), &acct)
			}
		}
		oid, err := newOID(tx)
		if err != nil {
			return err
		}
		name := strings.TrimSpace(m.Name)
		if name == "" {
			name = "Merchant " + oid
		}
		now := a.env.Clock.Now().UTC()
		acct = Account{OID: oid, Name: name, ApplicationID: m.ApplicationID, ExternalApplicationID: m.ExternalApplicationID,
			CreatedAt: now, Batch: 1, BatchOpenedAt: now}
		if acct.Token, err = a.sign(oid, now); err != nil {
			return err
		}
		if m.ApplicationID != "" {
			if err := tx.Bucket([]byte(bucketByApp)).Put([]byte(m.ApplicationID), []byte(oid)); err != nil {
				return err
			}
		}
		return kit.Put(tx, bucketAccounts, oid, acct)
	})
	if err != nil {
		return Account{}, fmt.Errorf("payments sandbox: open account: %w", err)
	}
	return acct, nil
}

// newOID draws a ten-digit account id not in use.
func newOID(tx *bolt.Tx) (string, error) {
	for range 20 {
		n, err := rand.Int(rand.Reader, big.NewInt(9_000_000_000))
		if err != nil {
			return "", err
		}
		oid := fmt.Sprintf("%d", 1_000_000_000+n.Int64())
		if tx.Bucket([]byte(bucketAccounts)).Get([]byte(oid)) == nil {
			return oid, nil
		}
	}
	return "", errors.New("no free account id")
}

// sign issues an account's long-lived token.
func (a *Area) sign(oid string, now time.Time) (string, error) {
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, claims{OID: oid, RegisteredClaims: jwt.RegisteredClaims{
		Issuer: issuer, Subject: oid, IssuedAt: jwt.NewNumericDate(now),
	}})
	return t.SignedString(a.key)
}

// verify checks a token's signature and returns the account it is for.
func (a *Area) verify(token string) (string, error) {
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return a.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithIssuer(issuer),
		jwt.WithTimeFunc(a.env.Clock.Now))
	if err != nil {
		return "", err
	}
	if c.OID == "" || c.Subject != c.OID {
		return "", errors.New("token names no account")
	}
	return c.OID, nil
}

// Accounts lists the accounts, newest first.
func (a *Area) Accounts() ([]Account, error) {
	var out []Account
	err := a.env.Store.DB.View(func(tx *bolt.Tx) error {
		return kit.EachJSON(tx, bucketAccounts, func(_ string, acct *Account) error {
			out = append(out, *acct)
			return nil
		})
	})
	sortNewest(out, func(x Account) time.Time { return x.CreatedAt })
	return out, err
}

// account reads one account.
func (a *Area) account(oid string) (Account, error) {
	var acct Account
	err := a.env.Store.DB.View(func(tx *bolt.Tx) error { return kit.Get(tx, bucketAccounts, oid, &acct) })
	return acct, err
}
