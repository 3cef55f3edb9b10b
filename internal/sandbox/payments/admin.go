package payments

import (
	"errors"
	"net/http"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ErrNotReturnable reports an ACH return the admin asked for that cannot
// happen.
var ErrNotReturnable = errors.New("only a settled, approved ACH sale not yet returned can be returned")

// ErrNoSuchTransaction reports an unknown uniqueTransId.
var ErrNoSuchTransaction = errors.New("no such transaction")

// TransactionView is a transaction with its state now, for the admin.
type TransactionView struct {
	Transaction
	Status string `json:"status"`
}

// Transactions lists the transactions of oid (every account's when
// empty), newest first, at most limit (0: all).
func (a *Area) Transactions(oid string, limit int) ([]TransactionView, error) {
	var out []TransactionView
	err := a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		now := a.env.Clock.Now()
		if err := a.settleDue(tx, now); err != nil {
			return err
		}
		return eachTransaction(tx, oid, func(t *Transaction) error {
			v := TransactionView{Transaction: *t, Status: t.status(now, a.opts.AuthLapse)}
			v.Answer = t.view(now)
			out = append(out, v)
			return nil
		})
	})
	sortNewest(out, func(v TransactionView) time.Time { return v.CreatedAt })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, err
}

// ReturnACH makes the bank return a settled ACH sale with code (R01, R29,
// ...), dated now on the sandbox clock; read-back shows it.
func (a *Area) ReturnACH(uniqueTransID, code string) (*TransactionView, error) {
	reason, ok := achReturnReasons[code]
	if !ok {
		return nil, errors.New("return code must be one of R01, R02, R03, R10, R29")
	}
	var out *TransactionView
	err := a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		now := a.env.Clock.Now()
		if err := a.settleDue(tx, now); err != nil {
			return err
		}
		var found *Transaction
		if err := eachTransaction(tx, "", func(t *Transaction) error {
			if t.UniqueTransID == uniqueTransID {
				found = t
			}
			return nil
		}); err != nil {
			return err
		}
		switch {
		case found == nil:
			return ErrNoSuchTransaction
		case found.Type != typeACHSale || !found.Approved || found.VoidedBy != "" || found.SettledAt == nil ||
			found.ACHReturn != nil || (found.ReturnDueAt != nil && !now.Before(*found.ReturnDueAt)):
			return ErrNotReturnable
		}
		found.ACHReturn = &achReturn{Code: code, Reason: reason, At: now.UTC()}
		found.ReturnDueAt = nil
		out = &TransactionView{Transaction: *found, Status: found.status(now, a.opts.AuthLapse)}
		out.Answer = found.view(now)
		return a.updateTransaction(tx, found)
	})
	return out, err
}

// adminStatus maps an admin error to a status code.
func adminStatus(err error) int {
	switch {
	case errors.Is(err, ErrNoSuchTransaction):
		return http.StatusNotFound
	case errors.Is(err, ErrNotReturnable):
		return http.StatusConflict
	}
	return http.StatusBadRequest
}
