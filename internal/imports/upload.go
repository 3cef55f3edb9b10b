package imports

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/payportal/portal/internal/apperr"
)

// uploadSlack is what an upload may hold beyond the file: boundaries, the owner's
// field and the CSRF token.
const uploadSlack = 64 << 10

// maxFieldBytes bounds each form field read into memory.
const maxFieldBytes = 1 << 10

// readUpload reads a multipart upload, collecting its form fields (which come first)
// into fields, and calls fn with the "file" part as it arrives: the file never sits
// whole in memory or on disk. A form that the CSRF check already parsed (a form posted
// without JavaScript carries the token as a field) is read from the parsed form.
func readUpload(w http.ResponseWriter, req *http.Request, fields url.Values, fn func(file io.Reader, name string) error) error {
	if req.MultipartForm != nil {
		return readParsedUpload(req.MultipartForm, fields, fn)
	}
	if req.ContentLength > MaxFileBytes+uploadSlack {
		return fileError("The file is larger than %d MiB; split it and import each part.", MaxFileBytes>>20)
	}
	req.Body = http.MaxBytesReader(w, req.Body, MaxFileBytes+uploadSlack)
	mr, err := req.MultipartReader()
	if err != nil {
		return apperr.Invalid(FieldFile, "Send the file as a multipart form upload.")
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return apperr.Invalid(FieldFile, "Choose a CSV file to upload.")
		}
		if err != nil {
			return csvError(err)
		}
		name := part.FormName()
		if name == FieldFile {
			if part.FileName() == "" {
				return apperr.Invalid(FieldFile, "Choose a CSV file to upload.")
			}
			return fn(part, part.FileName())
		}
		if err := readField(part, name, fields); err != nil {
			return err
		}
	}
}

// readParsedUpload serves a form the CSRF check already parsed: its fields are
// copied into fields and its file (spooled to a temporary file) handed to fn.
func readParsedUpload(form *multipart.Form, fields url.Values, fn func(file io.Reader, name string) error) error {
	for k, v := range form.Value {
		fields[k] = v
	}
	files := form.File[FieldFile]
	if len(files) == 0 || files[0].Filename == "" {
		return apperr.Invalid(FieldFile, "Choose a CSV file to upload.")
	}
	if files[0].Size > MaxFileBytes {
		return fileError("The file is larger than %d MiB; split it and import each part.", MaxFileBytes>>20)
	}
	f, err := files[0].Open()
	if err != nil {
		return fmt.Errorf("imports: open the parsed upload: %w", err)
	}
	defer f.Close()
	return fn(f, files[0].Filename)
}

// readField adds a form field sent before the file to fields; a field longer
// than maxFieldBytes is refused.
func readField(part *multipart.Part, name string, fields url.Values) error {
	value, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
	if err != nil {
		return csvError(err)
	}
	if len(value) > maxFieldBytes {
		return apperr.Invalid(name, "This value is too long.")
	}
	fields.Add(name, string(value))
	return nil
}
