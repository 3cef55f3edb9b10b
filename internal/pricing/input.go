package pricing

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/validation"
)

// Limits of the free-text fields, generous for their purpose but short enough
// to stay readable where reps see them.
const (
	maxNameLength        = 100
	maxDescriptionLength = 2000
	maxFeeSummaryLength  = 300
)

// codePattern is the shape of an upstream pricing code. The database checks the
// same rule (pricing_models_upstream_code_format).
var codePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{2,64}$`)

// Field names, shared by the form, the validation messages and the audit trail.
const (
	FieldName              = "name"
	FieldDescription       = "description"
	FieldAdminNote         = "admin_note"
	FieldUpstreamCode      = "upstream_code"
	FieldDevicePurchased   = "device_purchased"
	FieldFeeSummary        = "fee_summary"
	FieldRequiredDocuments = "required_documents"
	FieldActive            = "active"
)

// fieldLabels name the fields in the history shown to admins.
var fieldLabels = map[string]string{
	FieldName:              "name",
	FieldDescription:       "description",
	FieldAdminNote:         "note for admins",
	FieldUpstreamCode:      "upstream pricing code",
	FieldDevicePurchased:   "device purchased",
	FieldFeeSummary:        "fee summary",
	FieldRequiredDocuments: "required documents",
	FieldActive:            "offered to reps",
}

// Input is what an admin supplies to create or change a pricing model.
type Input struct {
	Name        string
	Description string
	// AdminNote is for admins only, never shown to reps.
	AdminNote       string
	UpstreamCode    string
	DevicePurchased bool
	// DeviceUnanswered says the form's yes/no question about the device was left
	// unanswered, which it must not be: the question has no default, so that it is
	// answered on purpose.
	DeviceUnanswered      bool
	FeeSummary            string
	RequiredDocumentTypes []string
	Active                bool
}

// normalized trims the text and puts the document types in the order pages
// show them, without repeats, so that equal choices compare equal.
func (in Input) normalized() Input {
	in.Name = strings.TrimSpace(in.Name)
	in.Description = strings.TrimSpace(in.Description)
	in.AdminNote = strings.TrimSpace(in.AdminNote)
	in.UpstreamCode = strings.TrimSpace(in.UpstreamCode)
	in.FeeSummary = strings.TrimSpace(in.FeeSummary)
	docs := []string{}
	for _, d := range documents.DocumentTypes {
		if slices.Contains(in.RequiredDocumentTypes, d.Code) {
			docs = append(docs, d.Code)
		}
	}
	for _, code := range in.RequiredDocumentTypes {
		if !documents.IsDocumentType(code) && !slices.Contains(docs, code) {
			docs = append(docs, code) // kept so that Validate reports it
		}
	}
	in.RequiredDocumentTypes = docs
	return in
}

// textRule is what one text field of a pricing model must be, in the words
// shown beside it.
type textRule struct {
	field, label, value string
	multiline           bool
	missing             string         // shown when empty; "" when it may be empty
	max                 int            // the most characters
	tooLong             string         // shown when over max
	pattern             *regexp.Regexp // nil for any text
	unlike              string         // shown when pattern does not match
}

// textRules are the rules of the input's text fields.
func (in Input) textRules() []textRule {
	return []textRule{
		{field: FieldName, label: "The name", value: in.Name,
			missing: "Enter a name that reps will recognise.",
			max:     maxNameLength, tooLong: "Keep the name to 100 characters or fewer."},
		{field: FieldDescription, label: "The description", value: in.Description, multiline: true,
			max: maxDescriptionLength, tooLong: "Keep the description to 2,000 characters or fewer."},
		{field: FieldAdminNote, label: "The note for admins", value: in.AdminNote, multiline: true,
			max: maxDescriptionLength, tooLong: "Keep the note to 2,000 characters or fewer."},
		{field: FieldUpstreamCode, label: "The pricing code", value: in.UpstreamCode,
			missing: "Enter the pricing code the upstream issued for this model.",
			pattern: codePattern, unlike: "Use 2 to 64 letters, digits, dashes (-), underscores (_) or dots (.), exactly as the upstream issued it."},
		{field: FieldFeeSummary, label: "The fee summary", value: in.FeeSummary,
			missing: "Enter a short fee summary for reps, for example \"2.9% + $0.30 per transaction\".",
			max:     maxFeeSummaryLength, tooLong: "Keep the fee summary to 300 characters or fewer; put details in the description."},
	}
}

// problem returns the message for the value, or "" when it is fine. Text
// that is not text (a NUL byte, invalid UTF-8, a line break in a one-line
// field) is refused first, with the field's own words.
func (r textRule) problem() string {
	if p := validation.CheckText(r.value, r.multiline); p != validation.TextOK {
		return validation.TextMessage(r.label, p)
	}
	switch {
	case r.value == "":
		return r.missing
	case r.max > 0 && utf8.RuneCountInString(r.value) > r.max:
		return r.tooLong
	case r.pattern != nil && !r.pattern.MatchString(r.value):
		return r.unlike
	}
	return ""
}

// Validate checks a normalized input and returns the problems by field.
func (in Input) Validate() apperr.FieldErrors {
	errs := apperr.FieldErrors{}
	for _, r := range in.textRules() {
		if msg := r.problem(); msg != "" {
			errs[r.field] = msg
		}
	}
	if in.DeviceUnanswered {
		errs[FieldDevicePurchased] = "Choose whether the merchant buys a payment device."
	}
	for _, code := range in.RequiredDocumentTypes {
		if !documents.IsDocumentType(code) {
			errs[FieldRequiredDocuments] = "Choose document types from the list."
			break
		}
	}
	return errs
}

// apply copies the input onto a model.
func (in Input) apply(m *models.PricingModel) {
	m.Name = in.Name
	m.Description = in.Description
	m.AdminNote = in.AdminNote
	m.UpstreamCode = in.UpstreamCode
	m.DevicePurchased = in.DevicePurchased
	m.FeeSummary = in.FeeSummary
	m.RequiredDocumentTypes = slices.Clone(in.RequiredDocumentTypes)
	m.Active = in.Active
}

// changedFields names the fields in which the input differs from the model.
func (in Input) changedFields(m *models.PricingModel) []string {
	var changed []string
	add := func(field string, differs bool) {
		if differs {
			changed = append(changed, field)
		}
	}
	add(FieldName, in.Name != m.Name)
	add(FieldDescription, in.Description != m.Description)
	add(FieldAdminNote, in.AdminNote != m.AdminNote)
	add(FieldUpstreamCode, in.UpstreamCode != m.UpstreamCode)
	add(FieldDevicePurchased, in.DevicePurchased != m.DevicePurchased)
	add(FieldFeeSummary, in.FeeSummary != m.FeeSummary)
	add(FieldRequiredDocuments, !slices.Equal(in.RequiredDocumentTypes, []string(m.RequiredDocumentTypes)))
	add(FieldActive, in.Active != m.Active)
	return changed
}
