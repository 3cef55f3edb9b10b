package pricing

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
)

// The actions recorded in a model's audit trail.
const (
	ActionCreated  = "created"
	ActionUpdated  = "updated"
	ActionArchived = "archived"
	ActionRestored = "restored"
	ActionDeleted  = "deleted"
)

// eventDetails is the JSON kept in pricing_model_events.details.
type eventDetails struct {
	// Fields names the changed fields of an update.
	Fields []string `json:"fields,omitempty"`
	// Name keeps a deleted model's name, since the row is gone.
	Name string `json:"name,omitempty"`
	// Seeded marks the example models created at first start.
	Seeded bool `json:"seeded,omitempty"`
}

// event is an audit entry being built.
type event struct {
	row     models.PricingModelEvent
	details eventDetails
}

func newEvent(modelID uuid.UUID, actor *models.User, action string, at time.Time) *event {
	return &event{row: models.PricingModelEvent{PricingModelID: modelID, ActorID: actorID(actor), Action: action, CreatedAt: at}}
}

func (e *event) withOldCode(code string) *event { e.row.OldCode = &code; return e }
func (e *event) withNewCode(code string) *event { e.row.NewCode = &code; return e }
func (e *event) withFields(f []string) *event   { e.details.Fields = f; return e }
func (e *event) withName(name string) *event    { e.details.Name = name; return e }
func (e *event) seeded() *event                 { e.details.Seeded = true; return e }

// record returns the row to insert.
func (e *event) record() *models.PricingModelEvent {
	b, _ := json.Marshal(e.details) // a struct of strings cannot fail to encode
	e.row.Details = models.JSON(b)
	return &e.row
}

// HistoryEntry is one line of a model's history as admins read it.
type HistoryEntry struct {
	At      time.Time
	Action  string
	Actor   string // name or e-mail of who acted; "" for the system
	OldCode string
	NewCode string
	// Fields are the labels of the fields an update changed.
	Fields []string
}

// ActionLabel is the action in words.
func (h HistoryEntry) ActionLabel() string {
	switch h.Action {
	case ActionCreated:
		return "Created"
	case ActionUpdated:
		return "Changed"
	case ActionArchived:
		return "Archived"
	case ActionRestored:
		return "Restored"
	case ActionDeleted:
		return "Deleted"
	}
	return h.Action
}

// CodeChanged reports whether the entry changed the upstream code.
func (h HistoryEntry) CodeChanged() bool { return h.OldCode != "" && h.NewCode != "" }

// FieldList is the changed fields as one phrase.
func (h HistoryEntry) FieldList() string { return strings.Join(h.Fields, ", ") }

// History returns a model's audit trail, newest first.
func (s *Service) History(ctx context.Context, id uuid.UUID) ([]HistoryEntry, error) {
	rows, err := s.store.events(ctx, id)
	if err != nil {
		return nil, err
	}
	entries := make([]HistoryEntry, 0, len(rows))
	for _, r := range rows {
		h := HistoryEntry{At: r.CreatedAt, Action: r.Action, Actor: r.ActorName}
		if h.Actor == "" {
			h.Actor = r.ActorEmail
		}
		if r.OldCode != nil {
			h.OldCode = *r.OldCode
		}
		if r.NewCode != nil {
			h.NewCode = *r.NewCode
		}
		var d eventDetails
		if len(r.Details) > 0 {
			_ = json.Unmarshal(r.Details, &d) // an unreadable entry still shows its action
		}
		for _, f := range d.Fields {
			if label, ok := fieldLabels[f]; ok {
				h.Fields = append(h.Fields, label)
			} else {
				h.Fields = append(h.Fields, f)
			}
		}
		entries = append(entries, h)
	}
	return entries, nil
}
