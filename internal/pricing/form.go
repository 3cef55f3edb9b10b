package pricing

import (
	"slices"

	"github.com/payportal/portal/internal/models"
)

// Form is the pricing model form as typed, kept whole so that a rejected form
// comes back with every value the admin entered.
type Form struct {
	Name        string `form:"name"`
	Description string `form:"description"`
	AdminNote   string `form:"admin_note"`
	Code        string `form:"upstream_code"`
	// Device is "yes", "no", or "" when neither was chosen.
	Device     string   `form:"device_purchased"`
	FeeSummary string   `form:"fee_summary"`
	Documents  []string `form:"required_documents"`
	Active     bool     `form:"active"`
	// Version is the model's version the form was opened on (edits only).
	Version int `form:"version"`
}

// newForm is the blank form of a new model: offered to reps unless unticked.
func newForm() Form { return Form{Active: true} }

// formFromModel fills the form of an existing model.
func formFromModel(m *models.PricingModel) Form {
	device := "no"
	if m.DevicePurchased {
		device = "yes"
	}
	return Form{
		Name: m.Name, Description: m.Description, AdminNote: m.AdminNote, Code: m.UpstreamCode, Device: device,
		FeeSummary: m.FeeSummary, Documents: slices.Clone(m.RequiredDocumentTypes),
		Active: m.Active, Version: m.Version,
	}
}

// Input converts the form into the service's input.
func (f Form) Input() Input {
	return Input{
		Name: f.Name, Description: f.Description, AdminNote: f.AdminNote, UpstreamCode: f.Code,
		DevicePurchased: f.Device == "yes", DeviceUnanswered: f.Device != "yes" && f.Device != "no", FeeSummary: f.FeeSummary,
		RequiredDocumentTypes: f.Documents, Active: f.Active,
	}
}

// HasDocument reports whether the document type is ticked.
func (f Form) HasDocument(code string) bool { return slices.Contains(f.Documents, code) }
