package documents

import "testing"

func TestDocumentTypesAreDistinctAndLabelled(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range DocumentTypes {
		if seen[d.Code] || d.Label == "" || !IsDocumentType(d.Code) || DocumentTypeLabel(d.Code) != d.Label {
			t.Errorf("bad document type %+v", d)
		}
		seen[d.Code] = true
	}
	if DocumentTypeLabel("gone") != "gone" {
		t.Error("an unknown code must show as itself")
	}
}
