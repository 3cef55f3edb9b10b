package payments

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// idempotencyRecord is what an idempotency key holds: the request it came
// with (a keyed hash of its body), and the first answer once there is one.
type idempotencyRecord struct {
	Op        string    `json:"op"`
	Hash      string    `json:"hash"`
	Running   bool      `json:"running"`
	Answer    []byte    `json:"answer,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// write runs one write: validation, idempotency, then the operation. It
// returns the status and body to answer with (the caller may drop the
// connection instead, after acting).
func (a *Area) write(w http.ResponseWriter, r *http.Request, oid string, op *opSpec) (int, []byte) {
	body, err := kit.ReadObject(w, r)
	if err != nil {
		return errorBody(err)
	}
	q, err := parseRequest(op, body)
	if err != nil {
		return errorBody(err)
	}
	key := r.Header.Get("Idempotency-Key")
	hash := a.bodyHash(op.name, body)
	replay, err := a.begin(oid, key, hash, q)
	if err != nil {
		return errorBody(err)
	}
	if replay != nil {
		return http.StatusOK, replay
	}
	a.at("begun")
	if timeout, err := a.timesOut(oid, q); err != nil || timeout {
		if err == nil {
			err = a.processorTimeout(r)
		}
		a.release(oid, key, hash)
		return errorBody(err)
	}
	answer, err := a.perform(oid, key, hash, q)
	if err != nil {
		a.release(oid, key, hash)
		return errorBody(err)
	}
	return http.StatusOK, answer
}

// errorBody renders an error as the API does.
func errorBody(err error) (int, []byte) {
	rec := &bodyRecorder{header: http.Header{}}
	writeError(rec, err)
	return rec.status, rec.body
}

// at calls the test hook, when one is set.
func (a *Area) at(stage string) {
	if a.hook != nil {
		a.hook(stage)
	}
}

// bodyHash is a keyed hash of the canonical body: the body holds card data,
// so a plain hash would be a searchable stand-in for the number.
func (a *Area) bodyHash(op string, body map[string]any) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(op + "\n"))
	m.Write(canonical(body))
	return hex.EncodeToString(m.Sum(nil))
}

// begin settles what is due, then applies the idempotency key and the
// externalTransactionId: it returns the answer to replay, or nil to go on
// (the key then marked running), or a refusal.
func (a *Area) begin(oid, key, hash string, q *request) ([]byte, error) {
	var replay []byte
	err := a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		now := a.env.Clock.Now()
		if err := a.settleDue(tx, now); err != nil {
			return err
		}
		if key != "" {
			var rec idempotencyRecord
			err := kit.Get(tx, bucketIdempotency, oid+"/"+key, &rec)
			switch {
			case err == nil && now.Before(rec.CreatedAt.Add(a.opts.IdempotencyTTL)):
				if rec.Hash != hash {
					return kit.NewError(http.StatusUnprocessableEntity,
						"idempotency-key: this key was used with another request; use a new key for a new request")
				}
				if rec.Running {
					return kit.NewError(http.StatusConflict,
						"idempotency-key: a request with this key is still being processed; read it back or retry later")
				}
				replay = rec.Answer
				return nil
			case err != nil && !errors.Is(err, kit.ErrNotFound):
				return err
			}
		}
		existing, err := a.byExternalID(tx, oid, q.str("externalTransactionId"))
		if err != nil {
			return err
		}
		if existing != nil {
			if existing.Op != q.op.name {
				return kit.FieldError(q.op.wrapper+".externalTransactionId",
					"is already the id of a "+existing.Type+"; every transaction needs its own")
			}
			replay = encodeAnswer(existing.view(now))
		}
		if key == "" {
			return nil
		}
		rec := idempotencyRecord{Op: q.op.name, Hash: hash, Running: replay == nil, Answer: replay, CreatedAt: now}
		return kit.Put(tx, bucketIdempotency, oid+"/"+key, rec)
	})
	return replay, err
}

// release frees a key whose request failed before it acted, so the same
// request can be sent again.
func (a *Area) release(oid, key, hash string) {
	if key == "" {
		return
	}
	_ = a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		var rec idempotencyRecord
		if kit.Get(tx, bucketIdempotency, oid+"/"+key, &rec) != nil || rec.Hash != hash || !rec.Running {
			return nil
		}
		return tx.Bucket([]byte(bucketIdempotency)).Delete([]byte(oid + "/" + key))
	})
}

// perform carries out the operation in one transaction of the store: it
// checks the externalTransactionId again (a keyless twin may have won the
// race), acts, stores the transactions and the key's answer.
func (a *Area) perform(oid, key, hash string, q *request) ([]byte, error) {
	var out []byte
	err := a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		now := a.env.Clock.Now()
		if err := a.settleDue(tx, now); err != nil {
			return err
		}
		existing, err := a.byExternalID(tx, oid, q.str("externalTransactionId"))
		if err != nil {
			return err
		}
		var t *Transaction
		if existing != nil {
			t = existing
		} else {
			p := &proc{a: a, tx: tx, now: now, q: q}
			if p.acct, err = a.accountTx(tx, oid); err != nil {
				return err
			}
			if t, err = p.run(); err != nil {
				return err
			}
			if err := a.putTransaction(tx, t); err != nil {
				return err
			}
		}
		out = encodeAnswer(t.view(now))
		if key != "" {
			rec := idempotencyRecord{Op: q.op.name, Hash: hash, Answer: out, CreatedAt: now}
			return kit.Put(tx, bucketIdempotency, oid+"/"+key, rec)
		}
		return nil
	})
	return out, err
}

// readBack answers GET /orgs/{oid}/transactions/{externalTransactionId}.
func (a *Area) readBack(oid, externalID string) (int, []byte) {
	var t *Transaction
	var now time.Time
	err := a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		now = a.env.Clock.Now()
		if err := a.settleDue(tx, now); err != nil {
			return err
		}
		var err error
		t, err = a.byExternalID(tx, oid, externalID)
		return err
	})
	if err != nil {
		return errorBody(err)
	}
	if t == nil {
		return errorBody(kit.NewError(http.StatusNotFound, "no transaction with this externalTransactionId on this account"))
	}
	return http.StatusOK, encodeAnswer(t.view(now))
}

// processorTimeout waits the configured delay (wall clock), then answers
// 504 as a processor that never answered the gateway.
func (a *Area) processorTimeout(r *http.Request) error {
	t := time.NewTimer(a.opts.TimeoutDelay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
	return kit.NewError(http.StatusGatewayTimeout, "the card processor did not answer in time; nothing was charged")
}

// bodyRecorder captures an error answer's status and body.
type bodyRecorder struct {
	header http.Header
	status int
	body   []byte
}

// Header returns the recorded header.
func (b *bodyRecorder) Header() http.Header { return b.header }

// WriteHeader records the status.
func (b *bodyRecorder) WriteHeader(s int) { b.status = s }

// Write records the body.
func (b *bodyRecorder) Write(p []byte) (int, error) {
	b.body = append(b.body, p...)
	return len(p), nil
}
