package payments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// accountTx reads an account inside tx.
func (a *Area) accountTx(tx *bolt.Tx, oid string) (*Account, error) {
	var acct Account
	if err := kit.Get(tx, bucketAccounts, oid, &acct); err != nil {
		if errors.Is(err, kit.ErrNotFound) {
			return nil, kit.NewError(http.StatusForbidden, "the account is closed")
		}
		return nil, err
	}
	return &acct, nil
}

// transaction reads one transaction of an account (nil when absent).
func (a *Area) transaction(tx *bolt.Tx, oid, uniqueTransID string) (*Transaction, error) {
	var t Transaction
	err := kit.Get(tx, bucketTransactions, oid+"/"+uniqueTransID, &t)
	if errors.Is(err, kit.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// byExternalID reads a transaction by its externalTransactionId (nil when
// absent).
func (a *Area) byExternalID(tx *bolt.Tx, oid, externalID string) (*Transaction, error) {
	id := tx.Bucket([]byte(bucketByExternal)).Get([]byte(oid + "/" + externalID))
	if id == nil {
		return nil, nil
	}
	return a.transaction(tx, oid, string(id))
}

// putTransaction stores t and indexes its externalTransactionId.
func (a *Area) putTransaction(tx *bolt.Tx, t *Transaction) error {
	if err := kit.Put(tx, bucketTransactions, t.OID+"/"+t.UniqueTransID, t); err != nil {
		return err
	}
	if t.ExternalID == "" {
		return nil
	}
	return tx.Bucket([]byte(bucketByExternal)).Put([]byte(t.OID+"/"+t.ExternalID), []byte(t.UniqueTransID))
}

// updateTransaction stores changes to an existing transaction.
func (a *Area) updateTransaction(tx *bolt.Tx, t *Transaction) error {
	return kit.Put(tx, bucketTransactions, t.OID+"/"+t.UniqueTransID, t)
}

// eachTransaction calls fn with every transaction of oid (every account
// when oid is empty), in key order, until fn returns an error.
func eachTransaction(tx *bolt.Tx, oid string, fn func(t *Transaction) error) error {
	c := tx.Bucket([]byte(bucketTransactions)).Cursor()
	prefix := []byte(oid + "/")
	if oid == "" {
		prefix = nil
	}
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var t Transaction
		if err := json.Unmarshal(v, &t); err != nil {
			return fmt.Errorf("transaction %s: %w", k, err)
		}
		if err := fn(&t); err != nil {
			return err
		}
	}
	return nil
}
