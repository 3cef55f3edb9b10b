package payments

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// vaultEntry is a saved card or bank account. It holds no card or account
// number: a keyed fingerprint, the brand, the last four digits and the
// expiry (cards), or the holder, routing number and type (bank accounts),
// and what the test card or account makes the processor do.
type vaultEntry struct {
	Token       string   `json:"token"`
	Kind        string   `json:"kind"` // card or bank
	Fingerprint string   `json:"fingerprint"`
	Brand       string   `json:"brand,omitempty"`
	Last4       string   `json:"last4"`
	Length      int      `json:"length"`
	Expiry      string   `json:"expiry,omitempty"` // MM-YY
	Behavior    behavior `json:"behavior"`
	HolderName  string   `json:"holderName,omitempty"`
	Routing     string   `json:"routing,omitempty"`
	AccountType string   `json:"accountType,omitempty"`
}

// masked is the maskedAccount of the answer: a star for each hidden digit,
// then the last four.
func (v *vaultEntry) masked() string {
	return strings.Repeat("*", max(v.Length-len(v.Last4), 4)) + v.Last4
}

// cardTypeCode is the accountCardType of the answer.
func (v *vaultEntry) cardTypeCode() string {
	if v.Kind == "bank" {
		return "ACH"
	}
	return cardTypeCodes[v.Brand]
}

// vaultCard files the keyed card of q and returns its entry: the same card
// on the same account always gets the same token.
func (a *Area) vaultCard(tx *bolt.Tx, oid string, q *request) (*vaultEntry, error) {
	pan := q.str("cardNumber")
	tc := testCardIndex[pan]
	e := &vaultEntry{Kind: "card", Fingerprint: a.fingerprint("card", pan), Brand: tc.Brand,
		Last4: pan[len(pan)-4:], Length: len(pan), Expiry: q.str("cardExpirationDate"), Behavior: behavior(tc.Behavior)}
	return a.file(tx, oid, e)
}

// vaultBank files the keyed bank account of q.
func (a *Area) vaultBank(tx *bolt.Tx, oid string, q *request) (*vaultEntry, error) {
	num, routing := q.str("accountNumber"), q.str("routingNumber")
	b := approve
	switch num {
	case achTestR01:
		b = achReturnR01
	case achTestR29:
		b = achReturnR29
	}
	acctType := q.str("accountType")
	if acctType == "" {
		acctType = "Checking"
	}
	e := &vaultEntry{Kind: "bank", Fingerprint: a.fingerprint("bank", routing+":"+num),
		Last4: num[max(0, len(num)-4):], Length: len(num), Behavior: b, HolderName: q.str("accountHolderName"), Routing: routing,
		AccountType: acctType}
	return a.file(tx, oid, e)
}

// file stores e under the token its fingerprint already has on oid, or a
// new one; the latest expiry and holder name win.
func (a *Area) file(tx *bolt.Tx, oid string, e *vaultEntry) (*vaultEntry, error) {
	fps := tx.Bucket([]byte(bucketFingerprints))
	if tok := fps.Get([]byte(oid + "/" + e.Fingerprint)); tok != nil {
		e.Token = string(tok)
	} else {
		var b [16]byte
		_, _ = rand.Read(b[:])
		e.Token = "vt_" + hex.EncodeToString(b[:])
		if err := fps.Put([]byte(oid+"/"+e.Fingerprint), []byte(e.Token)); err != nil {
			return nil, err
		}
	}
	return e, kit.Put(tx, bucketVault, e.Token, e)
}

// vaultGet reads a vault entry.
func (a *Area) vaultGet(tx *bolt.Tx, token string) (*vaultEntry, error) {
	var e vaultEntry
	if err := kit.Get(tx, bucketVault, token, &e); err != nil {
		if errors.Is(err, kit.ErrNotFound) {
			return nil, fmt.Errorf("vault token %s is missing", token)
		}
		return nil, err
	}
	return &e, nil
}
