package documents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/payportal/portal/internal/apperr"
)

// multipartSlack is what a request may hold beyond the file itself: the
// multipart boundaries and headers, the document type and the CSRF field.
const multipartSlack = 64 << 10

// maxFieldBytes bounds each non-file form field read into memory.
const maxFieldBytes = 1 << 10

// errInterrupted marks an upload whose body stopped before its end: the
// browser went away or the connection broke.
var errInterrupted = errors.New("documents: upload interrupted")

// fileFunc receives the file of an upload and the name the browser gave it.
type fileFunc func(file io.Reader, filename string) error

// readUpload reads a multipart upload, collecting its form fields into
// fields, and calls fn once with its "file" part. It streams: the body is capped at the size limit plus
// multipartSlack, the file part is handed to fn while it arrives, and fields
// must come before the file (the portal's forms and script send them so).
// A request whose form was already parsed (the CSRF check parses forms that
// carry the token as a field instead of a header) is read from the parsed
// form.
func readUpload(w http.ResponseWriter, req *http.Request, maxBytes int64, fields url.Values, fn fileFunc) error {
	if req.MultipartForm != nil {
		return readParsedUpload(req.MultipartForm, maxBytes, fields, fn)
	}
	if limit := maxBytes + multipartSlack; req.ContentLength > limit {
		// Refuse before receiving anything: the whole request is larger
		// than the largest file could make it.
		return rejectOverLimit(maxBytes)
	}
	body := &watchedBody{r: http.MaxBytesReader(w, req.Body, maxBytes+multipartSlack)}
	req.Body = body
	mr, err := req.MultipartReader()
	if err != nil {
		return apperr.Invalid(FieldFile, "Send the file as a multipart form upload.")
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return apperr.Invalid(FieldFile, "Choose a file to upload.")
		}
		if err != nil {
			return body.parseFailure(err)
		}
		name := part.FormName()
		if name == FieldFile && part.FileName() != "" {
			return body.deliver(part, fn)
		}
		if name == "" || name == FieldFile {
			continue
		}
		if err := body.readField(part, name, fields); err != nil {
			return err
		}
	}
}

// deliver hands the file part to fn while it arrives, and says what went wrong
// if it did.
func (b *watchedBody) deliver(part *multipart.Part, fn fileFunc) error {
	file := &watchedPart{r: part}
	err := fn(file, part.FileName())
	if err != nil && file.err != nil && b.err == nil && !errors.Is(file.err, context.Canceled) {
		// The body arrived whole but the form inside it is broken: most often a
		// chunked body that ends without the closing boundary.
		return errMalformedUpload
	}
	return b.explain(err)
}

// readField adds a form field sent before the file to fields; a field longer
// than maxFieldBytes is refused.
func (b *watchedBody) readField(part *multipart.Part, name string, fields url.Values) error {
	value, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
	if err != nil {
		return b.parseFailure(err)
	}
	if len(value) > maxFieldBytes {
		return apperr.Invalid(name, "This value is too long.")
	}
	fields.Add(name, string(value))
	return nil
}

// readParsedUpload serves a form that net/http already parsed, with the file
// spooled to a temporary file; its fields are copied into fields.
func readParsedUpload(form *multipart.Form, maxBytes int64, fields url.Values, fn fileFunc) error {
	for k, v := range form.Value {
		fields[k] = v
	}
	files := form.File[FieldFile]
	if len(files) == 0 || files[0].Filename == "" {
		return apperr.Invalid(FieldFile, "Choose a file to upload.")
	}
	fh := files[0]
	if err := CheckSize(fh.Size, Limits{MaxBytes: maxBytes}); err != nil {
		return err
	}
	f, err := fh.Open()
	if err != nil {
		return fmt.Errorf("documents: opening the parsed upload: %w", err)
	}
	defer f.Close()
	return fn(f, fh.Filename)
}

// watchedBody remembers the first read error of a request body, so that a
// failed upload can be told apart: the client went away (interrupted), the
// body passed the cap (too large), or something on our side failed.
type watchedBody struct {
	r   io.ReadCloser
	err error
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

func (b *watchedBody) Close() error { return b.r.Close() }

// explain turns a failure while reading the body into the error to report.
// Refusals of the file pass through unchanged.
func (b *watchedBody) explain(err error) error {
	if err == nil {
		return nil
	}
	var rejected *RejectedError
	if _, invalid := apperr.FieldsOf(err); invalid || errors.As(err, &rejected) {
		return err
	}
	var tooBig *http.MaxBytesError
	if errors.As(b.err, &tooBig) {
		return rejectOverLimit(tooBig.Limit - multipartSlack)
	}
	if b.err != nil {
		return fmt.Errorf("%w: %w", errInterrupted, b.err)
	}
	return err
}

// parseFailure explains an error of the multipart parser: a body that
// stopped or grew too large, or else a malformed form.
func (b *watchedBody) parseFailure(err error) error {
	if b.err != nil {
		return b.explain(err)
	}
	return errMalformedUpload
}

// errMalformedUpload answers a body that is not a well-formed multipart form (400).
var errMalformedUpload = apperr.New(apperr.KindMalformed,
	"The upload is not a complete multipart form (a part or its closing boundary is missing). Nothing was saved; try again.")

// watchedPart remembers the first read error of the file part, so that a broken form can
// be told apart from a failure of storage.
type watchedPart struct {
	r   io.Reader
	err error
}

func (p *watchedPart) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err != nil && err != io.EOF && p.err == nil {
		p.err = err
	}
	return n, err
}
