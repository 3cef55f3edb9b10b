package accounts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// StartedCount returns how many applications have been started.
func (s *Server) StartedCount() int {
	n := 0
	_ = s.view(func(tx *bolt.Tx) error { n = int(tx.Bucket([]byte(bOrder)).Sequence()); return nil })
	return n
}

// Application returns a copy of the application with the given id.
func (s *Server) Application(id string) (Application, bool) {
	var out Application
	err := s.view(func(tx *bolt.Tx) error {
		a, err := loadApp(tx, id)
		if err != nil {
			return err
		}
		out = a.snapshot(s.publicURL(), true)
		return nil
	})
	if err != nil {
		return out, false
	}
	return s.withSums(out), true
}

// Applications returns copies of every application, oldest first, without
// their data.
func (s *Server) Applications() []Application {
	out := []Application{}
	_ = s.view(func(tx *bolt.Tx) error {
		return kit.Each(tx, bOrder, func(_ string, id []byte) error {
			if a, err := loadApp(tx, string(id)); err == nil {
				out = append(out, a.snapshot(s.publicURL(), false))
			}
			return nil
		})
	})
	return out
}

// applicationPage returns up to limit applications, newest first, started
// before the one with sequence before (0: from the newest), and the
// sequence to pass for the next page (0 when there is none).
func (s *Server) applicationPage(before uint64, limit int) ([]Application, uint64) {
	var out []Application
	var next uint64
	_ = s.view(func(tx *bolt.Tx) error {
		cur := tx.Bucket([]byte(bOrder)).Cursor()
		var k, v []byte
		if before == 0 {
			k, v = cur.Last()
		} else if k, _ = cur.Seek(seqKey(before)); k == nil {
			k, v = cur.Last() // every key is below before
		} else {
			k, v = cur.Prev()
		}
		for ; k != nil; k, v = cur.Prev() {
			a, err := loadApp(tx, string(v))
			if err != nil {
				continue
			}
			if len(out) == limit {
				next = a.Seq + 1
				break
			}
			out = append(out, a.snapshot(s.publicURL(), false))
		}
		return nil
	})
	return out, next
}

// FileSHA256 returns the hex SHA-256 of an uploaded file's content, worked
// out from the stored object (a state from before objects were hashed on
// demand keeps the sum it recorded at upload).
func (s *Server) FileSHA256(appID, fileID string) (string, bool) {
	var (
		sum      string
		uploaded bool
	)
	_ = s.view(func(tx *bolt.Tx) error {
		a, err := loadApp(tx, appID)
		if err != nil {
			return err
		}
		if f, ok := a.file(fileID); ok && f.Uploaded {
			sum, uploaded = f.SHA256, true
		}
		return nil
	})
	if !uploaded || sum != "" {
		return sum, sum != ""
	}
	sum, err := s.objectSHA256(appID, fileID)
	if err != nil {
		s.log.Warn("sandbox object not hashed", "application_id", appID, "file_id", fileID, "err", err)
		return "", false
	}
	return sum, true
}

// objectSHA256 hashes a stored object's content.
func (s *Server) objectSHA256(appID, fileID string) (string, error) {
	r, err := s.ReadObject(appID, fileID)
	if err != nil {
		return "", err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// withSums fills the SHA-256 of the uploaded files of out that have none.
func (s *Server) withSums(out Application) Application {
	for i, f := range out.Files {
		if f.Uploaded && f.SHA256 == "" {
			if sum, err := s.objectSHA256(out.ID, f.ID); err == nil {
				out.Files[i].SHA256 = sum
			}
		}
	}
	return out
}

// recordUpload marks a file uploaded. An upload of the document the back
// office asked for resumes underwriting.
func (s *Server) recordUpload(appID, fileID string) error {
	err := s.update(func(c *change) error {
		a, err := loadApp(c.tx, appID)
		if err != nil {
			return err
		}
		f, ok := a.file(fileID)
		if !ok {
			return nil
		}
		// The sum, if an earlier sandbox recorded one, was the old content's.
		f.Uploaded, f.SHA256, f.UploadedAt = true, "", c.now
		a.Updated = c.now
		if p := a.Pending; a.Status == StatusProcessingPending && p != nil && p.Kind == "document" && p.FileType == f.FileType {
			if err := s.resume(c, a, "partner"); err != nil {
				return err
			}
		}
		return saveApp(c.tx, a)
	})
	if errors.Is(err, ErrNotFound) {
		return nil // the signature vouched for the path; the application is gone
	}
	return err
}
