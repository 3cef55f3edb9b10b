package documents

import (
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/payportal/portal/internal/apperr"
)

// ReadUpload reads a multipart upload for a surface other than the pages (the partner
// API), with the page's streaming, limits and refusals: fields before the file are
// collected into fields, and fn gets the "file" part while it arrives. A body that
// stops before its end is apperr.KindMalformed.
func ReadUpload(w http.ResponseWriter, req *http.Request, maxBytes int64, fields url.Values, fn func(file io.Reader, filename string) error) error {
	err := readUpload(w, req, maxBytes, fields, fn)
	if errors.Is(err, errInterrupted) {
		return apperr.Wrap(apperr.KindMalformed, err, "The upload stopped before the whole file arrived. Nothing was saved; try again.")
	}
	return err
}
