package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// URLLifetime is the published lifetime of a presigned URL, counted from
// the metadata POST (or the GET file that issued it).
const URLLifetime = 120 * time.Second

// File types the sandbox accepts. The upstream publishes no list.
const (
	FileTypeBankStatement           = "bankStatement"
	FileTypeVoidedCheck             = "voidedCheck"
	FileTypeIdentification          = "identification"
	FileTypeBusinessLicense         = "businessLicense"
	FileTypeTaxDocument             = "taxDocument"
	FileTypeProcessingStatement     = "processingStatement"
	FileTypeArticlesOfIncorporation = "articlesOfIncorporation"
	FileTypeOther                   = "other"
)

// FileMetadata describes a file before its content is uploaded.
type FileMetadata struct {
	FileType      string
	Name          string
	ContentLength int64
	ContentType   string
}

// FileUpload is where and until when a file's content can be uploaded.
type FileUpload struct {
	FileID       string
	PresignedURL string
	// ExpiresAt is the URL's expiry: from expAt when the upstream sends it,
	// otherwise 120 s after the request was sent (a little early, never late).
	ExpiresAt time.Time
}

// fileBody is the JSON of the metadata POST; contentLength is a string of
// digits, as published.
type fileBody struct {
	FileType      string `json:"fileType"`
	Name          string `json:"name"`
	ContentLength string `json:"contentLength"`
	ContentType   string `json:"contentType"`
}

// fileAnswer is the answer of the metadata POST and of GET file.
type fileAnswer struct {
	FileID       string      `json:"fileId"`
	PresignedURL string      `json:"presignedUrl"`
	ExpAt        json.Number `json:"expAt"`
}

// CreateFile posts a file's metadata and returns its id and presigned URL.
// The upstream answers in one of two documented shapes: with presignedUrl
// and expAt, or with only fileId, in which case the URL is fetched with GET
// file. Because each accepted POST creates a file record, it is repeated
// only when the upstream certainly did not act (request not sent, 429, 503);
// after other failures the caller repeats the whole step, which the
// specification names as the way to get a new URL.
func (c *Client) CreateFile(ctx context.Context, applicationID string, meta FileMetadata) (FileUpload, error) {
	if meta.FileType == "" || meta.Name == "" || meta.ContentType == "" || meta.ContentLength <= 0 {
		return FileUpload{}, errors.New("upstream: file metadata needs a type, a name, a content type and a positive length")
	}
	sentAt := c.cfg.Now()
	var out fileAnswer
	path := applicationPath(applicationID) + "/file"
	err := c.do(ctx, call{
		method: http.MethodPost, path: path, policy: retryUnprocessed, out: &out,
		body: fileBody{meta.FileType, meta.Name, strconv.FormatInt(meta.ContentLength, 10), meta.ContentType},
	})
	if err != nil {
		return FileUpload{}, err
	}
	if out.FileID == "" {
		return FileUpload{}, &Error{Method: http.MethodPost, Path: path, StatusCode: http.StatusOK, Message: "answer holds no fileId"}
	}
	if out.PresignedURL == "" {
		return c.GetFile(ctx, applicationID, out.FileID)
	}
	return FileUpload{FileID: out.FileID, PresignedURL: out.PresignedURL, ExpiresAt: expiry(out.ExpAt, sentAt)}, nil
}

// GetFile asks for a fresh presigned URL for a file already described.
func (c *Client) GetFile(ctx context.Context, applicationID, fileID string) (FileUpload, error) {
	sentAt := c.cfg.Now()
	var out fileAnswer
	path := applicationPath(applicationID) + "/file/" + url.PathEscape(fileID)
	if err := c.do(ctx, call{method: http.MethodGet, path: path, policy: retrySafe, out: &out}); err != nil {
		return FileUpload{}, err
	}
	if out.PresignedURL == "" {
		return FileUpload{}, &Error{Method: http.MethodGet, Path: path, StatusCode: http.StatusOK, Message: "answer holds no presignedUrl"}
	}
	return FileUpload{FileID: fileID, PresignedURL: out.PresignedURL, ExpiresAt: expiry(out.ExpAt, sentAt)}, nil
}

// GetFileURL returns a fresh presigned URL for a file.
func (c *Client) GetFileURL(ctx context.Context, applicationID, fileID string) (string, error) {
	up, err := c.GetFile(ctx, applicationID, fileID)
	return up.PresignedURL, err
}

// expiry reads expAt, whose unit is not published: values below 10^12 are
// seconds since the epoch, others milliseconds (the provider's other
// timestamps are milliseconds). Without expAt the URL is taken to expire
// 120 s after sentAt.
func expiry(expAt json.Number, sentAt time.Time) time.Time {
	f, err := expAt.Float64()
	if expAt == "" || err != nil || f <= 0 || math.IsInf(f, 0) {
		return sentAt.Add(URLLifetime)
	}
	if f < 1e12 {
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9))
	}
	return time.UnixMilli(int64(f))
}
