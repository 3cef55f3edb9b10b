package audit

import (
	"context"

	"github.com/google/uuid"
)

// SubjectAPIKey is a key of the partner API: its trail holds its creation and revocation.
const SubjectAPIKey Kind = "api_key"

// APIKey is the subject of an API key's trail.
func APIKey(id uuid.UUID) Subject { return Subject{Kind: SubjectAPIKey, ID: id} }

// The actions of an API key's trail (Details.Key names the key, KeyScope its scope).
const (
	// ActionAPIKeyCreated: an admin created the key (its secret was shown once).
	ActionAPIKeyCreated = "api_key_created"
	// ActionAPIKeyRevoked: an admin revoked the key; it stopped working at once.
	ActionAPIKeyRevoked = "api_key_revoked"
)

// APIKeyDetails is what a key's entries keep: its name, public prefix, scope and
// access, never its secret.
type APIKeyDetails struct {
	Name   string `json:"name"`
	Prefix string `json:"prefix"`
	Scope  string `json:"scope"`
	RepID  string `json:"rep_id,omitempty"`
	Access string `json:"access"`
}

// actingKey is the context key of the API key a request acts through.
type actingKey struct{}

// WithAPIKey returns ctx carrying the API key a request of the partner API acts
// through: every entry Record writes with it names the key (actor_key_id) beside the
// person it acted as, so the rooms' use cases need not know they were called by a key.
func WithAPIKey(ctx context.Context, keyID uuid.UUID) context.Context {
	return context.WithValue(ctx, actingKey{}, keyID)
}

// APIKeyOf returns the API key ctx acts through, if any.
func APIKeyOf(ctx context.Context) (uuid.UUID, bool) {
	id, ok := ctx.Value(actingKey{}).(uuid.UUID)
	return id, ok && id != uuid.Nil
}

// keyActor is the API key of an entry: its own, else the one ctx acts through.
func (e Event) keyActor(ctx context.Context) *uuid.UUID {
	if e.ActorKey != nil {
		return e.ActorKey
	}
	if id, ok := APIKeyOf(ctx); ok {
		return &id
	}
	return nil
}

// apiKeySentences are the key trail's rows of the table of sentences.
func apiKeySentences() map[string]sentence {
	return map[string]sentence{
		ActionAPIKeyCreated: {did: says("created the API key")},
		ActionAPIKeyRevoked: {did: says("revoked the API key")},
	}
}
