package partnerapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"strings"

	"github.com/labstack/echo/v4"
)

// IdempotencyHeader names the header of a POST's idempotency key.
const IdempotencyHeader = "Idempotency-Key"

// ReplayedHeader marks an answer replayed from the first request with its key.
const ReplayedHeader = "Idempotent-Replayed"

// keptHeaders are the headers of an answer kept for replay besides its body.
var keptHeaders = []string{echo.HeaderContentType, echo.HeaderLocation, "ETag"}

// Idempotent makes a POST with an Idempotency-Key safe to retry: the first request runs
// and its answer (below 500) is kept for 24 hours; a retry with the same key and body
// gets that answer again, one with another body 422, one while the first still runs 409.
// A POST without the header runs every time. maxBody bounds the body it reads.
func Idempotent(g *Guard, maxBody int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			idem := c.Request().Header.Get(IdempotencyHeader)
			if c.Request().Method != http.MethodPost || idem == "" {
				return next(c)
			}
			if !validIdempotencyKey(idem) {
				return problem(http.StatusBadRequest, CodeMalformed, "An Idempotency-Key is 1 to 255 visible ASCII characters, like a UUID.")
			}
			sum, cleanup, err := spoolAndHash(c, maxBody)
			defer cleanup()
			if err != nil {
				return err
			}
			return g.runOnce(c, next, idem, sum)
		}
	}
}

// runOnce claims the key and runs the request, or answers from the first one's record.
func (g *Guard) runOnce(c echo.Context, next echo.HandlerFunc, idem string, sum []byte) error {
	ctx := c.Request().Context()
	key := principalOf(c).KeyID
	outcome, reply, err := g.claim(ctx, key, idem, sum)
	switch {
	case err != nil:
		return err
	case outcome == mismatch:
		return problem(http.StatusUnprocessableEntity, CodeIdempotencyMismatch,
			"This Idempotency-Key was used with another request; use a new key for a new request.")
	case outcome == inFlight:
		return problem(http.StatusConflict, CodeIdempotencyInFlight,
			"The first request with this Idempotency-Key is still running; retry in a moment.")
	case outcome == replay:
		return writeReply(c, reply)
	}
	rec := &recorder{ResponseWriter: c.Response().Writer}
	c.Response().Writer = rec
	if err := next(c); err != nil {
		c.Error(err) // the one error handler writes the problem into the recorder
	}
	keep := context.WithoutCancel(ctx)
	status := c.Response().Status
	if status >= http.StatusInternalServerError || !c.Response().Committed {
		return g.forget(keep, key, idem, sum)
	}
	r := storedReply{Status: status, Headers: map[string]string{}, Body: rec.body.Bytes()}
	for _, h := range keptHeaders {
		if v := c.Response().Header().Get(h); v != "" {
			r.Headers[h] = v
		}
	}
	return g.finish(keep, key, idem, sum, r)
}

// writeReply answers a retry with the first request's answer.
func writeReply(c echo.Context, r *storedReply) error {
	h := c.Response().Header()
	for k, v := range r.Headers {
		h.Set(k, v)
	}
	h.Set(ReplayedHeader, "true")
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(r.Status)
	_, err := c.Response().Write(r.Body)
	return err
}

// recorder keeps a copy of what a handler writes.
type recorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func validIdempotencyKey(k string) bool {
	if len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// memoryBody is the size up to which a body is kept in memory rather than a file.
const memoryBody = 1 << 20

// spoolAndHash reads the request's body (at most maxBody bytes, else 413), puts it back
// for the handler, and returns the request's fingerprint: its method, path and body.
// A multipart body counts by its parts (names, file names, contents), not its bytes,
// since a client's retry draws a new boundary.
func spoolAndHash(c echo.Context, maxBody int64) ([]byte, func(), error) {
	req := c.Request()
	noop := func() {}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(req.Body, min(maxBody, memoryBody)+1))
	if err != nil {
		return nil, noop, problem(http.StatusBadRequest, CodeMalformed, "The body could not be read.")
	}
	body := io.ReadSeeker(bytes.NewReader(buf.Bytes()))
	cleanup := noop
	if n > memoryBody {
		f, err := spoolFile(io.MultiReader(&buf, req.Body), maxBody)
		if err != nil {
			return nil, noop, err
		}
		body, cleanup = f, func() { _ = f.Close(); _ = os.Remove(f.Name()) }
	} else if n > maxBody {
		return nil, noop, tooLarge(maxBody)
	}
	h := sha256.New()
	writeField(h, req.Method)
	writeField(h, req.URL.Path)
	if err := hashBody(h, req.Header.Get(echo.HeaderContentType), body); err != nil {
		cleanup()
		return nil, noop, err
	}
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		cleanup()
		return nil, noop, err
	}
	req.Body = io.NopCloser(body)
	return h.Sum(nil), cleanup, nil
}

// spoolFile writes r to a temporary file, refusing more than maxBody bytes.
func spoolFile(r io.Reader, maxBody int64) (*os.File, error) {
	f, err := os.CreateTemp("", "portal-api-*")
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(f, io.LimitReader(r, maxBody+1))
	if err == nil && n > maxBody {
		err = tooLarge(maxBody)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		var p *Problem
		if !errors.As(err, &p) {
			err = problem(http.StatusBadRequest, CodeMalformed, "The body could not be read.")
		}
		return nil, err
	}
	return f, nil
}

func tooLarge(maxBody int64) error {
	return problem(http.StatusRequestEntityTooLarge, CodeTooLarge, "The body is larger than "+itoa(int(maxBody>>20))+" MiB.")
}

// hashBody adds a body to the fingerprint: a multipart form part by part, anything else
// byte for byte.
func hashBody(h hash.Hash, contentType string, body io.Reader) error {
	mt, params, err := mime.ParseMediaType(contentType)
	writeField(h, strings.ToLower(mt))
	if err != nil || !strings.HasPrefix(mt, "multipart/") || params["boundary"] == "" {
		_, err := io.Copy(h, body)
		return err
	}
	mr := multipart.NewReader(body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return problem(http.StatusBadRequest, CodeMalformed, "The multipart body could not be read.")
		}
		writeField(h, part.FormName())
		writeField(h, part.FileName())
		content := sha256.New()
		if _, err := io.Copy(content, part); err != nil {
			return problem(http.StatusBadRequest, CodeMalformed, "The multipart body could not be read.")
		}
		h.Write(content.Sum(nil))
	}
}

// writeField adds a length-prefixed string, so fields cannot run into each other.
func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}
