package accounts

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"filippo.io/age"
	"github.com/google/uuid"
)

// storePrefix is the object store's path; an object is {appID}/{fileID}.
const storePrefix = "/_store/"

// amzDate is the timestamp form of X-Amz-Date.
const amzDate = "20060102T150405Z"

// presign builds a presigned PUT URL for f, valid from now for the URL
// lifetime. The signature covers the path, the issue time, the lifetime,
// the size and the content type, as S3's signed headers would, so a changed
// query or a different body is refused.
func (s *Server) presign(r *http.Request, appID string, f *fileRecord, now time.Time) (string, time.Time) {
	life := s.urlLife()
	path := storePrefix + appID + "/" + f.ID
	date := now.UTC().Format(amzDate)
	expires := strconv.Itoa(int(life.Seconds()))
	q := url.Values{}
	q.Set("X-Amz-Algorithm", "SANDBOX-HMAC-SHA256")
	q.Set("X-Amz-Date", date)
	q.Set("X-Amz-Expires", expires)
	q.Set("X-Amz-SignedHeaders", "content-length;content-type")
	q.Set("X-Amz-Signature", s.signature(path, date, expires, f.ContentLength, f.ContentType))
	return s.env.BaseURL(r) + path + "?" + q.Encode(), now.Truncate(time.Second).Add(life)
}

// signature is the hex HMAC-SHA256 of what a presigned URL vouches for.
func (s *Server) signature(path, date, expires string, size int64, ctype string) string {
	m := hmac.New(sha256.New, s.opts.SigningKey)
	fmt.Fprintf(m, "PUT\n%s\n%s\n%s\n%d\n%s", path, date, expires, size, ctype)
	return hex.EncodeToString(m.Sum(nil))
}

// handlePutObject stores an upload made through a presigned URL, checking
// what S3 checks, in S3's order: Content-Length (411), signature against the
// request's size and type (403 SignatureDoesNotMatch), expiry (403
// AccessDenied "Request has expired"). The body streams to disk.
func (s *Server) handlePutObject(w http.ResponseWriter, r *http.Request) {
	appID, fileID := r.PathValue("applicationId"), r.PathValue("fileId")
	q := r.URL.Query()
	date, expires, sig := q.Get("X-Amz-Date"), q.Get("X-Amz-Expires"), q.Get("X-Amz-Signature")
	if date == "" || expires == "" || sig == "" {
		writeS3Error(w, http.StatusForbidden, "AccessDenied", "Query-string authentication requires X-Amz-Date, X-Amz-Expires and X-Amz-Signature", nil)
		return
	}
	if r.ContentLength < 0 || (r.ContentLength == 0 && r.Header.Get("Content-Length") == "") {
		writeS3Error(w, http.StatusLengthRequired, "MissingContentLength", "You must provide the Content-Length HTTP header.", nil)
		return
	}
	want := s.signature(r.URL.Path, date, expires, r.ContentLength, r.Header.Get("Content-Type"))
	if !hmac.Equal([]byte(want), []byte(sig)) {
		writeS3Error(w, http.StatusForbidden, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method.", nil)
		return
	}
	issued, err1 := time.Parse(amzDate, date)
	secs, err2 := strconv.Atoi(expires)
	if err1 != nil || err2 != nil {
		writeS3Error(w, http.StatusForbidden, "AccessDenied", "Invalid date or expiry in the query string", nil)
		return
	}
	now := s.env.Clock.Now()
	if exp := issued.Add(time.Duration(secs) * time.Second); !now.Before(exp) {
		writeS3Error(w, http.StatusForbidden, "AccessDenied", "Request has expired", map[string]string{
			"X-Amz-Expires": expires,
			"Expires":       exp.UTC().Format(time.RFC3339),
			"ServerTime":    now.UTC().Format(time.RFC3339),
		})
		return
	}
	md5sum, err := s.writeObject(appID, fileID, r.Body, r.ContentLength)
	if err != nil {
		writeS3Error(w, http.StatusBadRequest, "IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header.", nil)
		return
	}
	if err := s.recordUpload(appID, fileID); err != nil {
		s.log.Error("sandbox upload not recorded", "application_id", appID, "file_id", fileID, "err", err)
		writeS3Error(w, http.StatusInternalServerError, "InternalError", "We encountered an internal error. Please try again.", nil)
		return
	}
	w.Header().Set("ETag", `"`+md5sum+`"`)
	w.WriteHeader(http.StatusOK)
}

// writeObject streams exactly size bytes of body to the object's file,
// through a temporary file so a broken upload leaves the old content, and
// returns the hex MD5 of the content (S3's ETag of a single PUT). Nothing
// else is computed on the way: an upload's SHA-256 is worked out from the
// stored object when someone asks for it (FileSHA256, one application's
// record), as a processor's object store spends nothing on what its clients
// do not ask for.
func (s *Server) writeObject(appID, fileID string, body io.Reader, size int64) (string, error) {
	if uuid.Validate(appID) != nil || uuid.Validate(fileID) != nil {
		return "", errors.New("object names are UUIDs")
	}
	dir := filepath.Join(s.objectDir, appID)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, fileID+".part-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	m := md5.New()
	var dst io.Writer = tmp
	var enc io.WriteCloser
	if id := s.opts.ObjectIdentity; id != nil {
		if enc, err = age.Encrypt(tmp, id.Recipient()); err != nil {
			_ = tmp.Close()
			return "", err
		}
		dst = enc
	}
	n, err := io.Copy(io.MultiWriter(dst, m), io.LimitReader(body, size))
	if enc != nil && err == nil {
		err = enc.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	if n != size {
		return "", fmt.Errorf("got %d of %d bytes", n, size)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, fileID)); err != nil {
		return "", err
	}
	return hex.EncodeToString(m.Sum(nil)), nil
}

// ReadObject returns the content of an uploaded object, decrypted when the object store
// is encrypted (Options.ObjectIdentity). Close it when done.
func (s *Server) ReadObject(appID, fileID string) (io.ReadCloser, error) {
	if uuid.Validate(appID) != nil || uuid.Validate(fileID) != nil {
		return nil, errors.New("object names are UUIDs")
	}
	f, err := os.Open(filepath.Join(s.objectDir, appID, fileID))
	if err != nil {
		return nil, err
	}
	if s.opts.ObjectIdentity == nil {
		return f, nil
	}
	plain, err := age.Decrypt(f, s.opts.ObjectIdentity)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("decrypting object %s/%s: %w", appID, fileID, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{plain, f}, nil
}

// s3Error is S3's XML error body.
type s3Error struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string   `xml:"Code"`
	Message   string   `xml:"Message"`
	Extra     []s3Item `xml:",any"`
	RequestID string   `xml:"RequestId"`
}

// s3Item is an extra element of an S3 error, such as Expires.
type s3Item struct {
	XMLName xml.Name
	Value   string `xml:",chardata"`
}

// writeS3Error answers in S3's error shape.
func writeS3Error(w http.ResponseWriter, status int, code, msg string, extra map[string]string) {
	body := s3Error{Code: code, Message: msg, RequestID: uuid.NewString()}
	for _, k := range []string{"X-Amz-Expires", "Expires", "ServerTime"} {
		if v, ok := extra[k]; ok {
			body.Extra = append(body.Extra, s3Item{XMLName: xml.Name{Local: k}, Value: v})
		}
	}
	w.Header().Set("Content-Type", "application/xml")
	// S3 closes the connection when it refuses an upload it has not read.
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, xml.Header)
	_ = xml.NewEncoder(w).Encode(body)
}
