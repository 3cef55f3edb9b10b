package accounts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// stateVersion is the layout version of the state file.
const stateVersion = 1

// savedState is the state file: everything the sandbox knows, so that a
// development server can restart without the portal's applications
// vanishing upstream.
type savedState struct {
	Version      int                  `json:"version"`
	Applications []savedApplication   `json:"applications"`
	Tokens       map[string]time.Time `json:"tokens"`
	TokensIssued int                  `json:"tokensIssued"`
}

type savedApplication struct {
	ID          string         `json:"id"`
	ExternalID  string         `json:"externalId"`
	PricingCode string         `json:"pricingCode"`
	Status      Status         `json:"status"`
	Data        map[string]any `json:"data"`
	Linked      bool           `json:"linked"`
	Created     time.Time      `json:"created"`
	Updated     time.Time      `json:"updated"`
	Files       []savedFile    `json:"files"`
	History     []StatusChange `json:"history"`
}

type savedFile struct {
	ID            string    `json:"id"`
	FileType      string    `json:"fileType"`
	Name          string    `json:"name"`
	ContentType   string    `json:"contentType"`
	ContentLength int64     `json:"contentLength"`
	Created       time.Time `json:"created"`
	Uploaded      bool      `json:"uploaded"`
	SHA256        string    `json:"sha256"`
}

// saveLocked writes the state file, when there is one, through a temporary
// file so a crash never leaves half a file. The caller holds s.mu.
func (s *Server) saveLocked() {
	if s.opts.StateFile == "" {
		return
	}
	st := savedState{Version: stateVersion, Tokens: s.tokens, TokensIssued: s.tokensIssued}
	for _, id := range s.order {
		a := s.apps[id]
		sa := savedApplication{
			ID: a.id, ExternalID: a.externalID, PricingCode: a.pricingCode, Status: a.status,
			Data: a.data, Linked: a.linked, Created: a.created, Updated: a.updated, History: a.history,
		}
		for _, fid := range a.fileOrder {
			f := a.files[fid]
			sa.Files = append(sa.Files, savedFile{
				ID: f.id, FileType: f.fileType, Name: f.name, ContentType: f.contentType,
				ContentLength: f.contentLength, Created: f.created, Uploaded: f.uploaded, SHA256: f.sha256,
			})
		}
		st.Applications = append(st.Applications, sa)
	}
	if err := writeFileAtomic(s.opts.StateFile, st); err != nil {
		s.log.Error("sandbox state not saved", "file", s.opts.StateFile, "err", err)
	}
}

func writeFileAtomic(path string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// load reads the state file, if there is one. A missing file is a fresh
// start; an unreadable one stops New, so no state is silently dropped.
func (s *Server) load() error {
	if s.opts.StateFile == "" {
		return nil
	}
	raw, err := os.ReadFile(s.opts.StateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sandbox: state file: %w", err)
	}
	var st savedState
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep numbers as the API received them
	if err := dec.Decode(&st); err != nil || st.Version != stateVersion {
		return fmt.Errorf("sandbox: state file %s is not a version %d state file (%v); move it away to start afresh", s.opts.StateFile, stateVersion, err)
	}
	for _, sa := range st.Applications {
		a := &application{
			id: sa.ID, externalID: sa.ExternalID, pricingCode: sa.PricingCode, status: sa.Status,
			data: sa.Data, linked: sa.Linked, created: sa.Created, updated: sa.Updated,
			history: sa.History, files: map[string]*storedFile{},
		}
		if a.data == nil {
			a.data = map[string]any{}
		}
		for _, f := range sa.Files {
			a.files[f.ID] = &storedFile{
				id: f.ID, fileType: f.FileType, name: f.Name, contentType: f.ContentType,
				contentLength: f.ContentLength, created: f.Created, uploaded: f.Uploaded, sha256: f.SHA256,
			}
			a.fileOrder = append(a.fileOrder, f.ID)
		}
		s.apps[a.id] = a
		s.order = append(s.order, a.id)
		s.byExternal[a.externalID] = a.id
	}
	if st.Tokens != nil {
		s.tokens = st.Tokens
	}
	s.tokensIssued = st.TokensIssued
	return nil
}
