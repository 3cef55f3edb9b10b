package applications

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/models"
)

// errOwnerWithoutID means a draft reached the sealer with an owner that has no id; the
// service gives every owner one first, because the id is part of the SSN's AAD.
var errOwnerWithoutID = errors.New("applications: owner without id")

// Sealer encrypts the personal data inside a draft (see Draft.SensitiveFields) before it is
// stored and decrypts it after loading. Every value is bound to its application and to the
// stable key of its field ("owners.<owner id>.ssn"), so a ciphertext copied to another row or
// owner fails to open instead of showing the wrong person's number.
type Sealer struct{ ring *fieldcrypt.KeyRing }

// NewSealer returns a sealer that encrypts with the ring's active key.
func NewSealer(ring *fieldcrypt.KeyRing) *Sealer { return &Sealer{ring: ring} }

// sealAAD names where a value lives: "application:<id>:<field key>".
func sealAAD(appID uuid.UUID, key string) string {
	return "application:" + appID.String() + ":" + key
}

// Seal returns a copy of d whose personal data is encrypted; d is not modified. Errors name
// the field, never its value.
func (s *Sealer) Seal(appID uuid.UUID, d drafts.Draft) (drafts.Draft, error) {
	out := d.Clone()
	for _, o := range out.Owners {
		if o.ID == "" {
			return drafts.Draft{}, errOwnerWithoutID
		}
	}
	for _, f := range out.SensitiveFields() {
		sealed, err := s.ring.Encrypt(*f.Value, sealAAD(appID, f.Key))
		if err != nil {
			return drafts.Draft{}, fmt.Errorf("encrypt %s: %w", f.Field, err)
		}
		*f.Value = sealed
	}
	return out, nil
}

// Open returns a copy of a sealed draft with its personal data decrypted.
func (s *Sealer) Open(appID uuid.UUID, sealed drafts.Draft) (drafts.Draft, error) {
	out := sealed.Clone()
	for _, f := range out.SensitiveFields() {
		plain, err := s.ring.Decrypt(*f.Value, sealAAD(appID, f.Key))
		if err != nil {
			return drafts.Draft{}, fmt.Errorf("decrypt %s of application %s: %w", f.Field, appID, err)
		}
		*f.Value = plain
	}
	return out, nil
}

// SealJSON encrypts d and encodes it for the applications.draft column.
func (s *Sealer) SealJSON(appID uuid.UUID, d drafts.Draft) (models.JSON, error) {
	sealed, err := s.Seal(appID, d)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(sealed)
	if err != nil {
		return nil, fmt.Errorf("encode draft: %w", err)
	}
	return models.JSON(b), nil
}

// OpenApplication decodes and decrypts the draft of a loaded application. The submission
// code uses it to build the upstream request.
func (s *Sealer) OpenApplication(a *models.Application) (drafts.Draft, error) {
	var sealed drafts.Draft
	if len(a.Draft) > 0 {
		if err := json.Unmarshal(a.Draft, &sealed); err != nil {
			return drafts.Draft{}, fmt.Errorf("decode draft of application %s: %w", a.ID, err)
		}
	}
	return s.Open(a.ID, sealed)
}

// Record is an application with its draft decrypted. It lives for one request and is never
// logged.
type Record struct {
	App   *models.Application
	Draft drafts.Draft
}
