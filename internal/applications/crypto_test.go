package applications

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/drafts/draftstest"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/fieldcrypt"
)

func testSealer(t *testing.T) *Sealer {
	t.Helper()
	ring, err := fieldcrypt.NewKeyRing("k1", map[string][]byte{"k1": bytes.Repeat([]byte{7}, fieldcrypt.KeySize)})
	if err != nil {
		t.Fatal(err)
	}
	return NewSealer(ring)
}

func TestSealerSealsOnlyPersonalDataAndOpensIt(t *testing.T) {
	s := testSealer(t)
	app := uuid.New()
	d := draftstest.Complete(drafts.EntityLLC)
	d.Owners = append(d.Owners, drafts.Owner{ID: "owner-2", FirstName: "Sam", SSN: "219-09-9998"})
	sealed, err := s.Seal(app, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{sealed.Business.TIN, sealed.Owners[0].SSN, sealed.Owners[1].SSN, sealed.Bank.AccountNumber} {
		if !strings.HasPrefix(v, "v1.k1.") {
			t.Errorf("value %q is not sealed", v)
		}
	}
	if sealed.Bank.RoutingNumber != "011401533" || sealed.Owners[1].FirstName != "Sam" {
		t.Error("a field that is not personal data was sealed")
	}
	if d.Owners[0].SSN != "234-56-6789" {
		t.Error("Seal changed its argument")
	}
	opened, err := s.Open(app, sealed)
	if err != nil {
		t.Fatal(err)
	}
	if opened.Business.TIN != d.Business.TIN || opened.Owners[1].SSN != "219-09-9998" || opened.Bank.AccountNumber != d.Bank.AccountNumber {
		t.Errorf("opened %+v", opened)
	}
}

func TestSealedValuesAreBoundToApplicationAndOwner(t *testing.T) {
	s := testSealer(t)
	app := uuid.New()
	d := draftstest.Complete(drafts.EntityLLC)
	d.Owners = append(d.Owners, drafts.Owner{ID: "owner-2", SSN: "219-09-9999"})
	sealed, err := s.Seal(app, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(uuid.New(), sealed); !errors.Is(err, fieldcrypt.ErrDecrypt) {
		t.Errorf("opened under another application: %v", err)
	}
	swapped := sealed.Clone()
	swapped.Owners[0].SSN, swapped.Owners[1].SSN = sealed.Owners[1].SSN, sealed.Owners[0].SSN
	_, err = s.Open(app, swapped)
	if !errors.Is(err, fieldcrypt.ErrDecrypt) {
		t.Errorf("SSNs swapped between owners opened: %v", err)
	}
	if strings.Contains(err.Error(), "6789") || strings.Contains(err.Error(), "9999") {
		t.Errorf("error shows the number: %v", err)
	}
	// Removing the first owner keeps the second's SSN readable: the AAD uses ids, not positions.
	sealed.Owners = sealed.Owners[1:]
	opened, err := s.Open(app, sealed)
	if err != nil || opened.Owners[0].SSN != "219-09-9999" {
		t.Errorf("after removing an owner: %v", err)
	}
	if _, err := s.Seal(app, drafts.Draft{Owners: []drafts.Owner{{SSN: "1"}}}); !errors.Is(err, errOwnerWithoutID) {
		t.Errorf("owner without id: %v", err)
	}
}
