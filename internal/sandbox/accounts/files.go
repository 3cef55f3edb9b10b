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
	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
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
	body, err := kit.ReadObject(w, r)
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
	var appID string
	err = s.update(func(c *change) error {
		a, err := lookup(c.tx, r.PathValue("applicationId"))
		if err != nil {
			return err
		}
		meta.ID = uuid.NewString()
		meta.Created = c.now
		a.Files = append(a.Files, *meta)
		a.Updated = c.now
		appID = a.ID
		return saveApp(c.tx, a)
	})
	if err != nil {
		return err
	}
	answer := map[string]any{"fileId": meta.ID}
	if compat := s.Compat(); !compat.OmitPresignedURL {
		u, exp := s.presign(r, appID, meta, meta.Created)
		answer["presignedUrl"] = u
		answer["expAt"] = expAt(exp, compat)
	}
	kit.WriteJSON(w, http.StatusCreated, answer)
	return nil
}

// fileMeta checks the metadata fields and returns the record to store.
func (s *Server) fileMeta(body map[string]any) (*fileRecord, error) {
	fileType, _ := body["fileType"].(string)
	name, _ := body["name"].(string)
	length, _ := body["contentLength"].(string)
	ctype, _ := body["contentType"].(string)
	switch {
	case fileType == "":
		return nil, kit.FieldError("fileType", "is required")
	case !slices.Contains(fileTypes, fileType):
		return nil, kit.FieldError("fileType", "must be one of "+quoteList(fileTypes))
	case name == "":
		return nil, kit.FieldError("name", "is required")
	case length == "":
		return nil, kit.FieldError("contentLength", "is required")
	case ctype == "":
		return nil, kit.FieldError("contentType", "is required")
	}
	size, err := strconv.ParseInt(length, 10, 64)
	if err != nil || size < 1 || !isDigits(length) {
		return nil, kit.FieldError("contentLength", "must be a string of digits holding the size in bytes, at least 1")
	}
	if size > s.opts.MaxFileSize {
		return nil, kit.FieldError("contentLength", "must be at most "+strconv.FormatInt(s.opts.MaxFileSize, 10)+" bytes")
	}
	if mt, _, err := mime.ParseMediaType(ctype); err != nil || !strings.Contains(strings.Trim(mt, "/"), "/") {
		return nil, kit.FieldError("contentType", "must be a media type such as application/pdf")
	}
	return &fileRecord{FileType: fileType, Name: name, ContentLength: size, ContentType: ctype}, nil
}

// handleGetFile issues a fresh presigned URL for a file; it expires 120 s
// after this call. The answer holds only presignedUrl, as published.
func (s *Server) handleGetFile(w http.ResponseWriter, r *http.Request) error {
	var f fileRecord
	var appID string
	err := s.view(func(tx *bolt.Tx) error {
		a, err := lookup(tx, r.PathValue("applicationId"))
		if err != nil {
			return err
		}
		found, ok := a.file(r.PathValue("fileId"))
		if !ok {
			return kit.NewError(http.StatusNotFound, "file %s not found", r.PathValue("fileId"))
		}
		f, appID = *found, a.ID
		return nil
	})
	if err != nil {
		return err
	}
	u, _ := s.presign(r, appID, &f, s.env.Clock.Now())
	kit.WriteJSON(w, http.StatusOK, map[string]any{"presignedUrl": u})
	return nil
}

// expAt writes an expiry in milliseconds, or seconds with
// Compat.ExpAtSeconds.
func expAt(t time.Time, c Compat) int64 {
	if c.ExpAtSeconds {
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
