// Package draftstest holds drafts for tests of the rooms that use them: a complete
// application a checklist finds nothing missing in, and a second owner.
package draftstest

import "github.com/payportal/portal/internal/drafts"

// Complete returns a draft of the given entity type with every field filled in and
// valid, so that its checklist (with pricing chosen and no documents required) is empty.
func Complete(entity drafts.EntityType) drafts.Draft {
	d := drafts.Draft{
		Business: drafts.Business{
			LegalName:          "Blue Fern Coffee LLC",
			DBA:                "Blue Fern",
			EntityType:         entity,
			TIN:                "12-3456789",
			IncorporationDate:  "2019-06-01",
			IncorporationState: "CA",
			Address: drafts.Address{
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
		Owners: []drafts.Owner{{
			ID: "owner-1", FirstName: "Jane", LastName: "Doe", Title: "Managing member",
			OwnershipPct: "100", DateOfBirth: "1980-04-02", SSN: "234-56-6789",
			Address: drafts.Address{Line1: "1 Home Way", City: "Oakland", State: "CA", PostalCode: "94601"},
			Phone:   "510-555-0199", Email: "jane@bluefern.example", IsControlPerson: true,
		}},
		Bank: drafts.Bank{
			HolderName: "Blue Fern Coffee LLC", RoutingNumber: "011401533",
			AccountNumber: "000123456789", AccountType: drafts.AccountChecking,
		},
		Contact: drafts.Contact{Name: "Jane Doe", Email: "jane@bluefern.example", Phone: "510-555-0199"},
		Notes:   "Met at the trade show.",
	}
	switch entity {
	case drafts.EntitySoleProprietor, drafts.EntityGovernment:
		d.Business.IncorporationDate, d.Business.IncorporationState = "", ""
	}
	if entity == drafts.EntityGovernment || entity == drafts.EntityNonProfit {
		d.Owners[0].OwnershipPct = ""
		d.Owners[0].Title = "Director"
	}
	return d
}

// SecondOwner is a valid owner to add to a complete draft.
func SecondOwner() drafts.Owner {
	return drafts.Owner{
		ID: "owner-2", FirstName: "John", LastName: "Roe", Title: "Member",
		OwnershipPct: "40", DateOfBirth: "1975-09-30", SSN: "234-56-7890",
		Address: drafts.Address{Line1: "2 Elm St", City: "Austin", State: "TX", PostalCode: "73301"},
		Phone:   "+1 512 555 0142", Email: "john@example.com",
	}
}
