package applications

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// errNoSnapshot means an application in the push has no submitted snapshot;
// only a submission writes one, so this is a broken row.
var errNoSnapshot = errors.New("applications: no submitted snapshot")

// snapshotVersion is the layout of applications.submitted_snapshot.
const snapshotVersion = 1

// submittedSnapshot is applications.submitted_snapshot: the upstream data of
// the submission, made once at submit, so that what the push sends and what
// the page shows are the same thing. The full data is sealed as one value
// with the key ring; the copy beside it has every personal number masked and
// is what pages read, without decrypting anything.
type submittedSnapshot struct {
	Version int                      `json:"v"`
	Masked  upstream.ApplicationData `json:"masked"`
	Sealed  string                   `json:"sealed"`
}

// snapshotAAD binds a sealed snapshot to its application.
func snapshotAAD(appID uuid.UUID) string {
	return "application:" + appID.String() + ":submitted_snapshot"
}

// SealSnapshot encodes data for applications.submitted_snapshot: sealed in
// full, and masked beside it.
func (s *Sealer) SealSnapshot(appID uuid.UUID, data upstream.ApplicationData) (models.JSON, error) {
	plain, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("encode submitted data: %w", err)
	}
	sealed, err := s.ring.Encrypt(string(plain), snapshotAAD(appID))
	if err != nil {
		return nil, fmt.Errorf("encrypt submitted data: %w", err)
	}
	b, err := json.Marshal(submittedSnapshot{Version: snapshotVersion, Masked: MaskUpstreamData(data), Sealed: sealed})
	if err != nil {
		return nil, fmt.Errorf("encode submitted snapshot: %w", err)
	}
	return models.JSON(b), nil
}

// OpenSnapshot decrypts the data an application was submitted with, for the
// push. It holds personal data in the clear.
func (s *Sealer) OpenSnapshot(a *models.Application) (upstream.ApplicationData, error) {
	snap, err := decodeSnapshot(a)
	if err != nil {
		return upstream.ApplicationData{}, err
	}
	plain, err := s.ring.Decrypt(snap.Sealed, snapshotAAD(a.ID))
	if err != nil {
		return upstream.ApplicationData{}, fmt.Errorf("decrypt submitted data of application %s: %w", a.ID, err)
	}
	var data upstream.ApplicationData
	if err := json.Unmarshal([]byte(plain), &data); err != nil {
		return upstream.ApplicationData{}, fmt.Errorf("decode submitted data of application %s: %w", a.ID, err)
	}
	return data, nil
}

// MaskedSnapshot returns what an application was submitted with, personal
// numbers masked, or nil when it was never submitted.
func MaskedSnapshot(a *models.Application) (*upstream.ApplicationData, error) {
	if len(a.SubmittedSnapshot) == 0 {
		return nil, nil
	}
	snap, err := decodeSnapshot(a)
	if err != nil {
		return nil, err
	}
	return &snap.Masked, nil
}

func decodeSnapshot(a *models.Application) (*submittedSnapshot, error) {
	if len(a.SubmittedSnapshot) == 0 || string(a.SubmittedSnapshot) == "null" {
		return nil, fmt.Errorf("application %s: %w", a.ID, errNoSnapshot)
	}
	var snap submittedSnapshot
	if err := json.Unmarshal(a.SubmittedSnapshot, &snap); err != nil {
		return nil, fmt.Errorf("decode submitted snapshot of application %s: %w", a.ID, err)
	}
	if snap.Version != snapshotVersion || snap.Sealed == "" {
		return nil, fmt.Errorf("application %s: submitted snapshot has an unknown layout", a.ID)
	}
	return &snap, nil
}

// MaskUpstreamData returns a copy of data with every personal number (TIN,
// SSNs, deposit account) replaced by its mask ("•••• 6789"), for pages and
// for storing beside the sealed copy.
func MaskUpstreamData(data upstream.ApplicationData) upstream.ApplicationData {
	out := data
	if data.LegalEntity != nil {
		le := *data.LegalEntity
		le.TIN = fieldcrypt.Mask(le.TIN)
		out.LegalEntity = &le
	}
	if data.Banking != nil {
		bk := *data.Banking
		bk.DepositAccount = fieldcrypt.Mask(bk.DepositAccount)
		out.Banking = &bk
	}
	out.Owners = make([]upstream.Owner, len(data.Owners))
	for i, o := range data.Owners {
		o.SSN = fieldcrypt.Mask(o.SSN)
		out.Owners[i] = o
	}
	if len(out.Owners) == 0 {
		out.Owners = nil
	}
	return out
}
