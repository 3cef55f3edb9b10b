package accounts

import (
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// fileTypes are the fileType values the sandbox accepts. The upstream does
// not publish its list; these are the documents an underwriter asks for.
var fileTypes = []string{
	"bankStatement", "voidedCheck", "identification", "businessLicense",
	"taxDocument", "processingStatement", "articlesOfIncorporation", "other",
}

// handleCreateFile records file metadata and issues a presigned PUT URL that
// expires 120 s later. With Compat.OmitPresignedURL it answers only fileId.
func (s *Server) handleCreateFile(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSON(w, r)
	if err != nil {
		return err
	}
	if err := (shapeChecker{}).check(body, reflect.TypeFor[fileBody](), ""); err != nil {
		return err
	}
	meta, err := s.fileMeta(body)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.lookupLocked(r.PathValue("applicationId"))
	if err != nil {
		return err
	}
	meta.id = uuid.NewString()
	meta.created = s.opts.Clock.Now()
	a.files[meta.id] = meta
	a.fileOrder = append(a.fileOrder, meta.id)
	a.updated = meta.created

	answer := map[string]any{"fileId": meta.id}
	if !s.compat.OmitPresignedURL {
		u, exp := s.presignLocked(r, a.id, meta, meta.created)
		answer["presignedUrl"] = u
		answer["expAt"] = s.expAtLocked(exp)
	}
	writeJSON(w, http.StatusCreated, answer)
	return nil
}

// fileMeta checks the metadata fields and returns the record to store.
func (s *Server) fileMeta(body map[string]any) (*storedFile, error) {
	fileType, _ := body["fileType"].(string)
	name, _ := body["name"].(string)
	length, _ := body["contentLength"].(string)
	ctype, _ := body["contentType"].(string)
	switch {
	case fileType == "":
		return nil, fieldError("fileType", "is required")
	case !slices.Contains(fileTypes, fileType):
		return nil, fieldError("fileType", "must be one of "+quoteList(fileTypes))
	case name == "":
		return nil, fieldError("name", "is required")
	case length == "":
		return nil, fieldError("contentLength", "is required")
	case ctype == "":
		return nil, fieldError("contentType", "is required")
	}
	size, err := strconv.ParseInt(length, 10, 64)
	if err != nil || size < 1 || !isDigits(length) {
		return nil, fieldError("contentLength", "must be a string of digits holding the size in bytes, at least 1")
	}
	if size > s.opts.MaxFileSize {
		return nil, fieldError("contentLength", "must be at most "+strconv.FormatInt(s.opts.MaxFileSize, 10)+" bytes")
	}
	if mt, _, err := mime.ParseMediaType(ctype); err != nil || !strings.Contains(strings.Trim(mt, "/"), "/") {
		return nil, fieldError("contentType", "must be a media type such as application/pdf")
	}
	return &storedFile{fileType: fileType, name: name, contentLength: size, contentType: ctype}, nil
}

// handleGetFile issues a fresh presigned URL for a file; it expires 120 s
// after this call. The answer holds only presignedUrl, as published.
func (s *Server) handleGetFile(w http.ResponseWriter, r *http.Request) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.lookupLocked(r.PathValue("applicationId"))
	if err != nil {
		return err
	}
	f, ok := a.files[r.PathValue("fileId")]
	if !ok {
		return newError(http.StatusNotFound, "file %s not found", r.PathValue("fileId"))
	}
	u, _ := s.presignLocked(r, a.id, f, s.opts.Clock.Now())
	writeJSON(w, http.StatusOK, map[string]any{"presignedUrl": u})
	return nil
}

// expAtLocked writes an expiry in milliseconds, or seconds with
// Compat.ExpAtSeconds. The caller holds s.mu.
func (s *Server) expAtLocked(t time.Time) int64 {
	if s.compat.ExpAtSeconds {
		return t.Unix()
	}
	return t.UnixMilli()
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func quoteList(list []string) string {
	out := ""
	for i, v := range list {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(v)
	}
	return out
}
