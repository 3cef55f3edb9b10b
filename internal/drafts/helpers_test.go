package drafts

import (
	"time"
)

// now is the fixed "today" of the tests: 15 March 2026.
var now = time.Date(2026, time.March, 15, 10, 30, 0, 0, time.UTC)

// completeDraft returns a draft of the given entity type with every field filled in and
// valid, so that its checklist (with pricing chosen and no documents required) is empty.
func completeDraft(entity EntityType) Draft {
	d := Draft{
		Business: Business{
			LegalName:          "Blue Fern Coffee LLC",
			DBA:                "Blue Fern",
			EntityType:         entity,
			TIN:                "12-3456789",
			IncorporationDate:  "2019-06-01",
			IncorporationState: "CA",
			Address: Address{
				Line1: "100 Market St", Line2: "Suite 5", City: "San Francisco", State: "CA", PostalCode: "94105",
			},
			Phone:            "(415) 555-0100",
			Email:            "hello@bluefern.example",
			Website:          "https://bluefern.example",
			GoodsAndServices: "Coffee and pastries",
			MCC:              "5814",
			YearsInBusiness:  "6",
			MonthlyVolume:    "45000.00",
			AverageTicket:    "12.50",
			HighestTicket:    "250",
			CardPresentPct:   "80",
			KeyedPct:         "5",
			EcommercePct:     "15",
		},
		Owners: []Owner{{
			ID: "owner-1", FirstName: "Jane", LastName: "Doe", Title: "Managing member",
			OwnershipPct: "100", DateOfBirth: "1980-04-02", SSN: "234-56-6789",
			Address: Address{Line1: "1 Home Way", City: "Oakland", State: "CA", PostalCode: "94601"},
			Phone:   "510-555-0199", Email: "jane@bluefern.example", IsControlPerson: true,
		}},
		Bank: Bank{
			HolderName: "Blue Fern Coffee LLC", RoutingNumber: "011401533",
			AccountNumber: "000123456789", AccountType: AccountChecking,
		},
		Contact: Contact{Name: "Jane Doe", Email: "jane@bluefern.example", Phone: "510-555-0199"},
		Notes:   "Met at the trade show.",
	}
	switch entity {
	case EntitySoleProprietor, EntityGovernment:
		d.Business.IncorporationDate, d.Business.IncorporationState = "", ""
	}
	if entity == EntityGovernment || entity == EntityNonProfit {
		d.Owners[0].OwnershipPct = ""
		d.Owners[0].Title = "Director"
	}
	return d
}

// secondOwner is a valid owner to add to a complete draft.
func secondOwner() Owner {
	return Owner{
		ID: "owner-2", FirstName: "John", LastName: "Roe", Title: "Member",
		OwnershipPct: "40", DateOfBirth: "1975-09-30", SSN: "234-56-7890",
		Address: Address{Line1: "2 Elm St", City: "Austin", State: "TX", PostalCode: "73301"},
		Phone:   "+1 512 555 0142", Email: "john@example.com",
	}
}

func mustLoad(t interface {
	Helper()
	Skipf(string, ...any)
}, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("time zone %s not available: %v", name, err)
	}
	return loc
}
