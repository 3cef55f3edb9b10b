package payments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/payportal/portal/internal/upstream/transport"
)

// attemptSpec is one request.
type attemptSpec struct {
	op, method, path string
	payload          []byte // nil for GET
	token, key       string
}

// request is the spec as the transport sends it, with the area's headers.
func (s attemptSpec) request(appVersion string) transport.Request {
	h := http.Header{"Authorization": {"Bearer " + s.token}}
	// Both names are sent as published (lowercase key, camel-case version);
	// assigning the map keeps them from being canonicalised.
	if s.key != "" {
		h["idempotency-key"] = []string{s.key}
	}
	if appVersion != "" {
		h["appVersion"] = []string{appVersion}
	}
	return transport.Request{Op: s.op, Method: s.method, Path: s.path, Payload: s.payload, Header: h}
}

// attemptResult is the outcome of one attempt, read.
type attemptResult struct {
	transport.Answer
	txn     *Transaction
	err     error
	garbled bool // a 2xx whose body could not be read
}

// verdict classifies a failed attempt.
type verdict int

const (
	// refused: the upstream answered and did nothing (4xx); repeating the
	// same request cannot help.
	refused verdict = iota
	// notDone: the upstream certainly did not act (429, or the request was
	// never fully written); repeat it after a wait.
	notDone
	// maybeDone: the request was sent and the answer is lost, a 5xx, an
	// unreadable 2xx or 409 "still processing": read the transaction back.
	maybeDone
)

func (r attemptResult) verdict() verdict {
	switch {
	case r.Unsent():
		return notDone
	case r.Status == 0, r.Status >= 500, r.garbled, r.Status == http.StatusRequestTimeout:
		return maybeDone
	case r.Status == http.StatusConflict && !errors.Is(r.err, ErrAlreadySettled):
		// 409 without "settled" is the idempotency key's request still
		// being processed.
		return maybeDone
	}
	return refused
}

// attempt makes attempt n of s and reads its answer.
func (c *Client) attempt(ctx context.Context, s attemptSpec, n int) attemptResult {
	a, err := c.t.Send(ctx, s.request(c.cfg.AppVersion), n)
	if err != nil {
		return attemptResult{Answer: a, err: &Error{Op: s.op, Method: s.method, Path: s.path, Err: err}}
	}
	return read(s, a)
}

// read turns an answer into the transaction it carries, or the error.
func read(s attemptSpec, a transport.Answer) attemptResult {
	res := attemptResult{Answer: a}
	switch {
	case a.Status == 0:
		res.err = &Error{Op: s.op, Method: s.method, Path: s.path, Err: a.Err}
		return res
	case !a.OK():
		res.err = &Error{Op: s.op, Method: s.method, Path: s.path, StatusCode: a.Status, Message: a.Refusal().Message}
		return res
	}
	var answer struct {
		TransactionResponse *Transaction `json:"transactionResponse"`
	}
	err := json.NewDecoder(bytes.NewReader(a.Body)).Decode(&answer)
	if err == nil && answer.TransactionResponse == nil {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		res.garbled = true
		res.err = &Error{Op: s.op, Method: s.method, Path: s.path, StatusCode: a.Status,
			Message: "answer is not a transactionResponse: " + err.Error()}
		return res
	}
	res.txn = answer.TransactionResponse
	return res
}

// marshalBody encodes the body without escaping HTML characters.
func marshalBody(b wireBody) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
