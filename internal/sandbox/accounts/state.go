package accounts

import (
	"encoding/json"
	"errors"
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

// statusLabels are the words the sandbox's pages use for each state.
var statusLabels = map[Status]string{
	StatusInitiated:         "Started by the partner",
	StatusRequested:         "Link sent to the merchant",
	StatusInProgress:        "Merchant filling in",
	StatusProcessing:        "Under review",
	StatusProcessingPending: "More information needed",
	StatusWithdrawn:         "Withdrawn",
	StatusDeclined:          "Declined",
	StatusBoarded:           "Boarded",
	StatusInstalled:         "Installed",
	StatusActive:            "Active",
}

// Label returns the words the sandbox's pages show for the state.
func (st Status) Label() string {
	if l, ok := statusLabels[st]; ok {
		return l
	}
	return string(st)
}

// adminMoves lists the moves the back office (the admin controls) can make
// from each state. The partner's calls and the merchant make the others:
// initiated → requested (link), requested → inProgress (opening the link),
// inProgress → processing (accepting the terms).
var adminMoves = map[Status][]Status{
	StatusInitiated:         {StatusWithdrawn, StatusDeclined},
	StatusRequested:         {StatusWithdrawn, StatusDeclined},
	StatusInProgress:        {StatusWithdrawn, StatusDeclined},
	StatusProcessing:        {StatusProcessingPending, StatusBoarded, StatusDeclined, StatusWithdrawn},
	StatusProcessingPending: {StatusProcessing, StatusBoarded, StatusDeclined, StatusWithdrawn},
	StatusBoarded:           {StatusInstalled},
	StatusInstalled:         {StatusActive},
}

// AdminMoves returns the states the admin controls can move an application
// in state st to.
func AdminMoves(st Status) []Status { return slices.Clone(adminMoves[st]) }

// ErrNotFound reports an unknown application or file.
var ErrNotFound = errors.New("sandbox: not found")

// ErrTransition reports a state change the sandbox does not allow.
var ErrTransition = errors.New("sandbox: state change not allowed")

// Application is a copy of an application's state, for tests and the admin
// surface. Data holds the merged application data as JSON.
type Application struct {
	ID                    string          `json:"applicationId"`
	ExternalApplicationID string          `json:"externalApplicationId"`
	Name                  string          `json:"name"`
	PricingCode           string          `json:"pricingCode"`
	Status                Status          `json:"status"`
	Linked                bool            `json:"linked"`
	Link                  string          `json:"link,omitempty"`
	Data                  json.RawMessage `json:"data,omitempty"`
	Files                 []File          `json:"files"`
	History               []StatusChange  `json:"history"`
	Changes               []DataChange    `json:"changes"`
	Pending               *PendingRequest `json:"pending,omitempty"`
	Underwriting          *Decision       `json:"underwriting,omitempty"`
	Created               time.Time       `json:"created"`
	Updated               time.Time       `json:"updated"`
}

// File is a copy of one file's metadata and upload state.
type File struct {
	ID            string `json:"fileId"`
	FileType      string `json:"fileType"`
	Name          string `json:"name"`
	ContentType   string `json:"contentType"`
	ContentLength int64  `json:"contentLength"`
	Uploaded      bool   `json:"uploaded"`
	// SHA256 of the uploaded content: worked out from the stored object in
	// one application's record (Server.Application); lists leave it empty.
	SHA256     string    `json:"sha256,omitempty"`
	Created    time.Time `json:"created"`
	UploadedAt time.Time `json:"uploadedAt,omitzero"`
}

// StatusChange records one move of an application's state and who made it.
type StatusChange struct {
	Status Status    `json:"status"`
	At     time.Time `json:"at"`
	By     string    `json:"by,omitempty"` // partner, merchant, underwriting, admin
}

// DataChange records one save of the merchant pages that changed values:
// what changed, from what to what (personal data masked), and how.
type DataChange struct {
	At     time.Time     `json:"at"`
	By     string        `json:"by"` // "merchant" or "bank link (<institution>)"
	Fields []FieldChange `json:"fields"`
}

// FieldChange is one value the merchant changed. From and To are shown as
// the pages show them: personal data masked to its last four characters.
type FieldChange struct {
	Path  string `json:"path"`
	Label string `json:"label"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// PendingRequest is what the back office asks for while an application is
// processingPending: a document of a type, or a detail the merchant must
// confirm or correct on the application pages.
type PendingRequest struct {
	Kind     string    `json:"kind"` // "document" or "detail"
	FileType string    `json:"fileType,omitempty"`
	Message  string    `json:"message"`
	At       time.Time `json:"at"`
}

// Decision is an automatic underwriting decision waiting on the clock.
type Decision struct {
	Outcome Status    `json:"outcome"` // boarded, declined or processingPending
	Due     time.Time `json:"due"`
	Reason  string    `json:"reason"` // the test data that chose it
}
