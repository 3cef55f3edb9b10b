package documents

// DocumentType is one kind of supporting document a pricing model can require,
// e.g. a voided check. Code is what is stored (pricing_models.required_document_types,
// documents.doc_type); Label is what people read.
type DocumentType struct {
	Code  string
	Label string
}

// DocumentTypes lists every document type, in the order pages show them. The
// documents feature reuses it for its upload choices. Treat it as read-only.
var DocumentTypes = []DocumentType{
	{Code: "voided_check", Label: "Voided check or bank letter"},
	{Code: "bank_statement", Label: "Bank statement"},
	{Code: "processing_statement", Label: "Processing statement from the current provider"},
	{Code: "photo_id", Label: "Government photo ID"},
	{Code: "business_registration", Label: "Articles of incorporation or business licence"},
	{Code: "tax_document", Label: "Tax document"},
	{Code: "other", Label: "Other"},
}

// IsDocumentType reports whether code names a known document type.
func IsDocumentType(code string) bool {
	for _, d := range DocumentTypes {
		if d.Code == code {
			return true
		}
	}
	return false
}

// DocumentTypeLabel returns the label of the document type code, or code itself
// when it is unknown, so that an old value still shows as something.
func DocumentTypeLabel(code string) string {
	for _, d := range DocumentTypes {
		if d.Code == code {
			return d.Label
		}
	}
	return code
}
