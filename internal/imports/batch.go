package imports

import (
	"time"

	"github.com/google/uuid"
)

// Batch is one uploaded file, from its preview to its import.
type Batch struct {
	ID        uuid.UUID
	CreatedBy uuid.UUID
	// OwnerID is the user whose drafts the rows become.
	OwnerID  uuid.UUID
	FileName string
	Headers  []string
	// Mapping is the field of each column, "" for a column left out.
	Mapping     []string
	Status      Status
	OnDuplicate OnDuplicate
	RowCount    int
	CreatedAt   time.Time
	ExpiresAt   time.Time
	// ImportStartedAt and ImportFinishedAt bound the import itself.
	ImportStartedAt  *time.Time
	ImportFinishedAt *time.Time
}

// Status is where a batch stands.
type Status string

// The states of a batch.
const (
	// StatusMapping waits for the user to say which column holds what.
	StatusMapping Status = "mapping"
	// StatusPreview shows every row checked; the user may import.
	StatusPreview Status = "preview"
	// StatusImporting is the import job at work.
	StatusImporting Status = "importing"
	// StatusDone is an import finished.
	StatusDone Status = "done"
)

// OnDuplicate says what the import does with a row that matches an existing merchant.
type OnDuplicate string

// The choices for duplicates.
const (
	DuplicateSkip   OnDuplicate = "skip"
	DuplicateUpdate OnDuplicate = "update"
)

// Lifetime is how long a batch and its sealed rows are kept after the upload.
const Lifetime = time.Hour

// Limits of a file.
const (
	// MaxRows is the most data rows a file may hold.
	MaxRows = 5000
	// MaxFileBytes bounds the upload: 5,000 full rows fit several times over.
	MaxFileBytes = 16 << 20
	// maxColumns and maxCellBytes bound one row.
	maxColumns   = 200
	maxCellBytes = 20000
)

// RowError is one problem of a row, beside the column it is in ("" for the row as a
// whole). Messages never quote personal data.
type RowError struct {
	Column  string `json:"column,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// Row checks.
const (
	checkValid     = "valid"
	checkInvalid   = "invalid"
	checkDuplicate = "duplicate"
)

// Row outcomes of the import.
const (
	outcomeCreated   = "created"
	outcomeUpdated   = "updated"
	outcomeUnchanged = "unchanged"
	outcomeSkipped   = "skipped"
	outcomeRefused   = "refused"
)
