package seed

import (
	"github.com/google/uuid"

	"github.com/payportal/portal/internal/drafts"
)

// ReadyDraft is a complete, valid draft of a business called name: its
// checklist is empty once a pricing model is chosen and the documents the model
// asks for are attached. The tests that push, board or rehearse an application
// start from it.
func ReadyDraft(name string) drafts.Draft {
	d := drafts.Draft{
		Business: drafts.Business{
			LegalName: name + " LLC", DBA: name, EntityType: drafts.EntityLLC, TIN: "12-3456789",
			IncorporationDate: "2019-06-01", IncorporationState: "CA",
			Address: drafts.Address{Line1: "100 Market St", City: "San Francisco", State: "CA", PostalCode: "94105"},
			Phone:   "(415) 555-0100", Email: "hello@bluefern.example", Website: "https://bluefern.example",
			GoodsAndServices: "Coffee and pastries", MCC: "5814", YearsInBusiness: "6",
			MonthlyVolume: "45000.00", AverageTicket: "12.50", HighestTicket: "250",
			CardPresentPct: "80", KeyedPct: "5", EcommercePct: "15",
		},
		Owners: []drafts.Owner{{
			ID: uuid.NewString(), FirstName: "Jane", LastName: "Doe", Title: "Managing member",
			OwnershipPct: "100", DateOfBirth: "1980-04-02", SSN: "234-56-6789",
			Address: drafts.Address{Line1: "1 Home Way", City: "Oakland", State: "CA", PostalCode: "94601"},
			Phone:   "510-555-0199", Email: "jane@bluefern.example", IsControlPerson: true,
		}},
		Bank: drafts.Bank{HolderName: name + " LLC", RoutingNumber: "011401533", AccountNumber: "000123456789",
			AccountType: drafts.AccountChecking},
		Contact: drafts.Contact{Name: "Jane Doe", Email: "jane@bluefern.example", Phone: "510-555-0199"},
	}
	d.Normalize()
	return d
}
