package applications

import (
	"encoding/json"
	"fmt"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/keys"
)

// SealedColumns are the applications row's sealed values, for the key ring's registry
// (internal/keys): the draft's personal data, the submitted snapshot, the hand-off link
// and the TIN's blind index, which is computed from the draft.
func SealedColumns() []keys.Column {
	id := []string{"id"}
	return []keys.Column{
		keys.DocumentColumn("applications", "draft", id, openDraft, resealDraft),
		keys.DocumentColumn("applications", "submitted_snapshot", id, openSnapshot, resealSnapshot),
		keys.SealedColumn("applications", "handoff_link", id, func(k keys.Key) string { return linkAAD(k.UUID(0)) }),
		keys.IndexColumn("applications", "tin_index", id, "draft", tinIndexOfDraft),
	}
}

// decodeDraft opens a stored draft.
func decodeDraft(ring *fieldcrypt.KeyRing, k keys.Key, value string) (drafts.Draft, error) {
	var sealed drafts.Draft
	if err := json.Unmarshal([]byte(value), &sealed); err != nil {
		return drafts.Draft{}, fmt.Errorf("decode draft: %w", err)
	}
	return NewSealer(ring).Open(k.UUID(0), sealed)
}

func openDraft(ring *fieldcrypt.KeyRing, k keys.Key, value string) (string, error) {
	d, err := decodeDraft(ring, k, value)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(d)
	return string(b), err
}

func resealDraft(ring *fieldcrypt.KeyRing, k keys.Key, value string) (string, error) {
	d, err := decodeDraft(ring, k, value)
	if err != nil {
		return "", err
	}
	b, err := NewSealer(ring).SealJSON(k.UUID(0), d)
	return string(b), err
}

func tinIndexOfDraft(ring *fieldcrypt.KeyRing, k keys.Key, draft string) (string, error) {
	d, err := decodeDraft(ring, k, draft)
	if err != nil {
		return "", err
	}
	return *NewSealer(ring).TINIndex(d), nil
}

// openSnapshot returns the submitted data in the clear (JSON).
func openSnapshot(ring *fieldcrypt.KeyRing, k keys.Key, value string) (string, error) {
	var snap submittedSnapshot
	if err := json.Unmarshal([]byte(value), &snap); err != nil {
		return "", fmt.Errorf("decode submitted snapshot: %w", err)
	}
	return ring.Decrypt(snap.Sealed, snapshotAAD(k.UUID(0)))
}

// resealSnapshot seals the snapshot's data again, keeping the rest of the document as
// it is.
func resealSnapshot(ring *fieldcrypt.KeyRing, k keys.Key, value string) (string, error) {
	var doc map[string]json.RawMessage
	var snap submittedSnapshot
	if err := json.Unmarshal([]byte(value), &doc); err != nil {
		return "", fmt.Errorf("decode submitted snapshot: %w", err)
	}
	if err := json.Unmarshal([]byte(value), &snap); err != nil {
		return "", fmt.Errorf("decode submitted snapshot: %w", err)
	}
	sealed, err := ring.Reencrypt(snap.Sealed, snapshotAAD(k.UUID(0)))
	if err != nil {
		return "", err
	}
	if doc["sealed"], err = json.Marshal(sealed); err != nil {
		return "", err
	}
	b, err := json.Marshal(doc)
	return string(b), err
}
