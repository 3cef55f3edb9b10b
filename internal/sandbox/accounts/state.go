package accounts

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Status is an application state, as the upstream's newest list names them.
type Status string

// The published application states.
const (
	StatusInitiated         Status = "initiated"
	StatusRequested         Status = "requested"
	StatusInProgress        Status = "inProgress"
	StatusProcessing        Status = "processing"
	StatusProcessingPending Status = "processingPending"
	StatusWithdrawn         Status = "withdrawn"
	StatusDeclined          Status = "declined"
	StatusBoarded           Status = "boarded"
	StatusInstalled         Status = "installed"
	StatusActive            Status = "active"
)

// statuses lists the published states in their order.
var statuses = []Status{
	StatusInitiated, StatusRequested, StatusInProgress, StatusProcessing, StatusProcessingPending,
	StatusWithdrawn, StatusDeclined, StatusBoarded, StatusInstalled, StatusActive,
}

// ErrNotFound reports an unknown application or file.
var ErrNotFound = errors.New("sandbox: not found")

// ErrTransition reports a state change the sandbox does not allow.
var ErrTransition = errors.New("sandbox: state change not allowed")

// application is the sandbox's record of one account application.
type application struct {
	id, externalID, pricingCode string
	status                      Status
	data                        map[string]any
	linked                      bool
	created, updated            time.Time
	files                       map[string]*storedFile
	fileOrder                   []string
	history                     []StatusChange
}

// storedFile is the record of one file's metadata and upload.
type storedFile struct {
	id, fileType, name, contentType string
	contentLength                   int64
	created                         time.Time
	uploaded                        bool
	sha256                          string
}

// Application is a copy of an application's state, for tests and the admin
// surface. Data holds the merged application data as JSON.
type Application struct {
	ID                    string          `json:"applicationId"`
	ExternalApplicationID string          `json:"externalApplicationId"`
	PricingCode           string          `json:"pricingCode"`
	Status                Status          `json:"status"`
	Linked                bool            `json:"linked"`
	Link                  string          `json:"link,omitempty"`
	Data                  json.RawMessage `json:"data,omitempty"`
	Files                 []File          `json:"files"`
	History               []StatusChange  `json:"history"`
	Created               time.Time       `json:"created"`
	Updated               time.Time       `json:"updated"`
}

// File is a copy of one file's metadata and upload state.
type File struct {
	ID            string    `json:"fileId"`
	FileType      string    `json:"fileType"`
	Name          string    `json:"name"`
	ContentType   string    `json:"contentType"`
	ContentLength int64     `json:"contentLength"`
	Uploaded      bool      `json:"uploaded"`
	SHA256        string    `json:"sha256,omitempty"`
	Created       time.Time `json:"created"`
}

// StatusChange records one move of an application's state.
type StatusChange struct {
	Status Status    `json:"status"`
	At     time.Time `json:"at"`
}

// snapshot copies a into an Application; base is the public base URL. The
// caller holds s.mu.
func (a *application) snapshot(base string, withData bool) Application {
	out := Application{
		ID: a.id, ExternalApplicationID: a.externalID, PricingCode: a.pricingCode,
		Status: a.status, Linked: a.linked, Created: a.created, Updated: a.updated,
		History: slices.Clone(a.history), Files: []File{},
	}
	if a.linked {
		out.Link = base + pagePrefix + a.id
	}
	if withData {
		out.Data, _ = json.Marshal(a.data)
	}
	for _, id := range a.fileOrder {
		f := a.files[id]
		out.Files = append(out.Files, File{
			ID: f.id, FileType: f.fileType, Name: f.name, ContentType: f.contentType,
			ContentLength: f.contentLength, Uploaded: f.uploaded, SHA256: f.sha256, Created: f.created,
		})
	}
	return out
}

// setStatusLocked moves a to st, records it and sends the webhook. The
// caller holds s.mu; sending only queues the delivery.
func (s *Server) setStatusLocked(a *application, st Status) {
	if a.status == st {
		return
	}
	now := s.opts.Clock.Now()
	a.status = st
	a.updated = now
	a.history = append(a.history, StatusChange{Status: st, At: now})
	s.hooks.send(webhookEvent{ID: a.id, Status: st, Created: now.UnixMilli()})
}

// StartedCount returns how many applications have been started.
func (s *Server) StartedCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.apps)
}

// Application returns a copy of the application with the given id.
func (s *Server) Application(id string) (Application, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[id]
	if !ok {
		return Application{}, false
	}
	return a.snapshot(s.publicURL, true), true
}

// Applications returns copies of every application, oldest first, without
// their data.
func (s *Server) Applications() []Application {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Application, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.apps[id].snapshot(s.publicURL, false))
	}
	return out
}

// FileSHA256 returns the hex SHA-256 of an uploaded file's content.
func (s *Server) FileSHA256(appID, fileID string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return "", false
	}
	f, ok := a.files[fileID]
	if !ok || !f.uploaded {
		return "", false
	}
	return f.sha256, true
}

// Decline moves an application to declined, as an underwriter would.
func (s *Server) Decline(id string) error { return s.SetStatus(id, StatusDeclined) }

// Board moves an accepted application to boarded.
func (s *Server) Board(id string) error { return s.SetStatus(id, StatusBoarded) }

// SetStatus moves an application to any published state, as the operator's
// back office would. Two moves are checked: boarding needs an accepted
// application (processing or processingPending), and a final state
// (withdrawn, declined, boarded, installed, active) cannot be declined.
func (s *Server) SetStatus(id string, st Status) error {
	if !slices.Contains(statuses, st) {
		return fmt.Errorf("%w: %q is not a published state", ErrTransition, st)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[id]
	if !ok {
		return fmt.Errorf("application %s: %w", id, ErrNotFound)
	}
	switch st {
	case StatusBoarded:
		if a.status != StatusProcessing && a.status != StatusProcessingPending {
			return fmt.Errorf("%w: cannot board an application in state %s", ErrTransition, a.status)
		}
	case StatusDeclined:
		if slices.Contains([]Status{StatusWithdrawn, StatusDeclined, StatusBoarded, StatusInstalled, StatusActive}, a.status) {
			return fmt.Errorf("%w: cannot decline an application in state %s", ErrTransition, a.status)
		}
	}
	s.setStatusLocked(a, st)
	s.saveLocked()
	return nil
}
