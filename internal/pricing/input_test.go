package pricing

import (
	"slices"
	"strings"
	"testing"
)

func validInput() Input {
	return Input{Name: "Flat", UpstreamCode: "FLAT-1", FeeSummary: "2.9%", Active: true}
}

func TestInputValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Input)
		field  string // "" when valid
	}{
		{"valid", func(*Input) {}, ""},
		{"code with dots and underscores", func(in *Input) { in.UpstreamCode = "a.b_c-9" }, ""},
		{"code trimmed", func(in *Input) { in.UpstreamCode = "  IC-PLUS \t" }, ""},
		{"shortest code", func(in *Input) { in.UpstreamCode = "AB" }, ""},
		{"longest code", func(in *Input) { in.UpstreamCode = strings.Repeat("A", 64) }, ""},
		{"code too short", func(in *Input) { in.UpstreamCode = "A" }, FieldUpstreamCode},
		{"code too long", func(in *Input) { in.UpstreamCode = strings.Repeat("A", 65) }, FieldUpstreamCode},
		{"code with a space", func(in *Input) { in.UpstreamCode = "IC PLUS" }, FieldUpstreamCode},
		{"code with a slash", func(in *Input) { in.UpstreamCode = "IC/PLUS" }, FieldUpstreamCode},
		{"code not ASCII", func(in *Input) { in.UpstreamCode = "TARIFÉ" }, FieldUpstreamCode},
		{"code missing", func(in *Input) { in.UpstreamCode = "   " }, FieldUpstreamCode},
		{"name missing", func(in *Input) { in.Name = " " }, FieldName},
		{"name too long", func(in *Input) { in.Name = strings.Repeat("é", 101) }, FieldName},
		{"name of 100 letters", func(in *Input) { in.Name = strings.Repeat("é", 100) }, ""},
		{"fee summary missing", func(in *Input) { in.FeeSummary = "" }, FieldFeeSummary},
		{"fee summary too long", func(in *Input) { in.FeeSummary = strings.Repeat("x", 301) }, FieldFeeSummary},
		{"description too long", func(in *Input) { in.Description = strings.Repeat("x", 2001) }, FieldDescription},
		{"admin note too long", func(in *Input) { in.AdminNote = strings.Repeat("x", 2001) }, FieldAdminNote},
		{"description of lines", func(in *Input) { in.Description = "Interchange plus.\nNo monthly fee." }, ""},
		{"name of two lines", func(in *Input) { in.Name = "Interchange\nplus" }, FieldName},
		{"fee summary with a NUL byte", func(in *Input) { in.FeeSummary = "2.9%\x00" }, FieldFeeSummary},
		{"device unanswered", func(in *Input) { in.DeviceUnanswered = true }, FieldDevicePurchased},
		{"known documents", func(in *Input) { in.RequiredDocumentTypes = []string{"photo_id", "voided_check"} }, ""},
		{"unknown document", func(in *Input) { in.RequiredDocumentTypes = []string{"photo_id", "passport"} }, FieldRequiredDocuments},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validInput()
			tt.change(&in)
			errs := in.normalized().Validate()
			if tt.field == "" && len(errs) > 0 {
				t.Fatalf("want valid, got %v", errs)
			}
			if tt.field != "" && (len(errs) != 1 || errs[tt.field] == "") {
				t.Fatalf("want one error on %s, got %v", tt.field, errs)
			}
		})
	}
}

func TestNormalizedOrdersDocumentsAndDropsRepeats(t *testing.T) {
	in := Input{RequiredDocumentTypes: []string{"other", "photo_id", "voided_check", "photo_id"}}
	got := in.normalized().RequiredDocumentTypes
	want := []string{"voided_check", "photo_id", "other"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := (Input{}).normalized().RequiredDocumentTypes; got == nil {
		t.Fatal("no documents must be an empty list, not nil: the column is NOT NULL")
	}
}

func TestFormNeedsDeviceAnswer(t *testing.T) {
	f := Form{Name: "Flat", Code: "FLAT-1", FeeSummary: "2.9%"}
	if errs := f.Input().normalized().Validate(); errs[FieldDevicePurchased] == "" {
		t.Fatalf("no device answer accepted: %v", errs)
	}
	f.Device = "no"
	if errs := f.Input().normalized().Validate(); len(errs) > 0 {
		t.Fatalf("valid form refused: %v", errs)
	}
}

func TestExampleModelsAreValid(t *testing.T) {
	for _, in := range exampleModels() {
		if errs := in.normalized().Validate(); len(errs) > 0 {
			t.Errorf("%s: %v", in.Name, errs)
		}
	}
}
