package workspace

import (
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/states"
	"github.com/payportal/portal/internal/view"
)

// EditPage is the data of the application page and of its section fragments.
type EditPage struct {
	App *models.Application
	// Form holds the values shown (see SaveResult.Shown); Errors the messages beside them.
	Form   drafts.Draft
	Errors drafts.FieldErrors
	// Workspace is what the page shows beside the form; a section fragment may carry only
	// the pricing options.
	Workspace *Workspace
	IsAdmin   bool
	// Editable is false once the application is locked or being submitted; LockReason says why.
	Editable   bool
	LockReason string
	// Section is the section a fragment renders, and Notice what its save did.
	Section string
	Notice  *SaveNotice
	// Conflict explains a save refused because the application changed elsewhere; Summary
	// lists the messages at the top of a page rendered after a failed save.
	Conflict string
	Summary  []drafts.FieldError
	// Focus is a field to focus when a fragment is swapped in.
	Focus string
	// Step is the step shown; the other steps' panels are hidden. "" (a fragment, or a
	// handed-off application) hides none.
	Step string
}

// CanSave reports whether a section may be saved now: every section while the application
// is editable, and the internal notes also once it is handed off.
func (p *EditPage) CanSave(section string) bool {
	if section == drafts.SectionNotes {
		return p.Editable || NotesWritable(p.App)
	}
	return p.Editable
}

// NotesHint says what the internal notes are for, once the application is handed off.
func (p *EditPage) NotesHint() string {
	if p.App.Locked() {
		return "The application is locked, but these notes are not: record follow-ups here. They are never sent to the processor."
	}
	return ""
}

// ChooseStep shows step name, or where the application needs work when name is no step.
// A handed-off application has no steps: what was sent comes first.
func (p *EditPage) ChooseStep(name string) {
	if p.App.Locked() {
		p.Step = ""
		return
	}
	if !IsStep(name) {
		name = firstStep(p.Workspace.Checklist)
	}
	p.Step = name
}

// Steps is the stepper of the page.
func (p *EditPage) Steps() []Step { return Steps(p.Workspace.Checklist, p.Step) }

// StepHidden reports whether a step's panel is hidden: it is not the one shown.
func (p *EditPage) StepHidden(name string) bool { return p.Step != "" && p.Step != name }

// NextStep is the step after a section, for its "Save and continue" button.
func (p *EditPage) NextStep(section string) string { return NextStep(section) }

// NextStepTitle names the step after a section.
func (p *EditPage) NextStepTitle(section string) string { return stepTitle(NextStep(section)) }

// SaveNotice is the small status beside a section's Save button after a save.
type SaveNotice struct {
	At time.Time
	// Held counts the fields typed but not saved; Problems the messages of the section.
	Held, Problems int
	Note           string
}

// Text says what the save did, for the status line.
func (n *SaveNotice) Text() string {
	at := view.LocalClock(n.At)
	switch {
	case n.Held == 1:
		return "Saved " + at + ", except 1 field marked below."
	case n.Held > 1:
		return "Saved " + at + ", except " + strconv.Itoa(n.Held) + " fields marked below."
	case n.Problems > 0:
		return "Saved " + at + ". Some values need attention, see below."
	case n.Note != "":
		return n.Note + " Saved " + at + "."
	}
	return "Saved " + at + "."
}

// Title names the application: the merchant's trading name, or a placeholder.
func (p *EditPage) Title() string {
	if name := p.Form.Business.DBAOrLegalName(); name != "" {
		return name
	}
	return "New application"
}

// Checklist is the readiness checklist, for the shared checklist partial.
func (p *EditPage) Checklist() drafts.Checklist { return p.Workspace.Checklist }

// AppID is the application's id, for the shared history partial.
func (p *EditPage) AppID() uuid.UUID { return p.App.ID }

// History is the audit trail, for the shared history partial.
func (p *EditPage) History() []audit.HistoryEntry { return p.Workspace.History }

// SectionSummary returns a section's messages in form order, for the summary at its top.
func (p *EditPage) SectionSummary(section string) []drafts.FieldError {
	return drafts.Sorted(drafts.SectionErrors(p.Errors, section))
}

// ShowSectionSummary reports whether a section's fragment shows its own summary: after an
// autosave, where the page's summary is not rendered again.
func (p *EditPage) ShowSectionSummary(section string) bool {
	return p.Notice != nil && p.Section == section && len(p.SectionSummary(section)) > 0
}

// SectionTitle is the heading of a section.
func (p *EditPage) SectionTitle(name string) string { return drafts.SectionTitle(name) }

// NoticeFor returns the save notice of a section, or nil.
func (p *EditPage) NoticeFor(section string) *SaveNotice {
	if p.Section != section {
		return nil
	}
	return p.Notice
}

// Field describes one field of the business, bank, contact or notes sections, or the 25%
// confirmation.
func (p *EditPage) Field(name string) drafts.FieldView {
	v, _ := p.Form.Get(name)
	if drafts.IsPhoneField(name) {
		v = drafts.FormatPhone(v) // stored as 10 digits, shown as (415) 555-0100
	}
	f := drafts.Input(name, v)
	f.Error = p.Errors[name]
	f.Disabled, f.Autofocus = !p.CanSave(drafts.SectionOf(name)), p.Focus != "" && p.Focus == name
	for _, s := range p.Form.SensitiveFields() {
		if s.Field != name {
			continue
		}
		f.Sensitive = true
		f.Autocomplete = "off"
		f.Masked = strings.HasPrefix(v, maskPrefix)
		if f.Masked {
			f.Hint = "Saved and hidden: only the last four digits show. To change it, replace the whole value."
			if p.IsAdmin {
				f.RevealKey, f.RevealURL = s.Key, applications.Path(p.App.ID)+"/reveal"
			}
		}
	}
	return f
}

// maskPrefix starts every mask fieldcrypt.Mask writes ("•••• 6789"); no typed number does.
var maskPrefix = fieldcrypt.Mask("0")

// OwnerField describes field sub ("first_name", "address.city") of owner i.
func (p *EditPage) OwnerField(i int, sub string) drafts.FieldView {
	return p.Field(drafts.OwnerField(i, sub))
}

// OwnerNumber is the 1-based position of owner i, for headings.
func (p *EditPage) OwnerNumber(i int) int { return i + 1 }

// Pricing describes the pricing model select.
func (p *EditPage) Pricing() drafts.FieldView {
	f := drafts.FieldView{
		Name: drafts.FieldPricingModel, Label: drafts.FieldLabel(drafts.FieldPricingModel), Error: p.Errors[drafts.FieldPricingModel],
		Kind: "select", Disabled: !p.Editable,
	}
	current := ""
	if p.App.PricingModelID != nil {
		current = p.App.PricingModelID.String()
	}
	f.Value = current
	f.Options = []drafts.Option{{Value: "", Label: "Choose…"}}
	opts := p.Workspace.Pricing
	if opts.CurrentRetired() {
		f.Options = append(f.Options, drafts.Option{Value: current, Label: opts.Current.Name + " (no longer offered)"})
	}
	for _, m := range opts.Selectable {
		f.Options = append(f.Options, drafts.Option{Value: m.ID.String(), Label: m.Name})
	}
	f.Options = drafts.WithSelection(f.Options, current)
	return f
}

// State is where the application stands, leading with the outcome: a boarded
// or declined application says so, not "Sent to merchant".
func (p *EditPage) State() states.State { return applications.State(p.App) }

// ChecklistCount is the number of outstanding items of a section, for the section nav.
func (p *EditPage) ChecklistCount(section string) int {
	return len(p.Workspace.Checklist.Section(section).Items)
}

// OwnerName is who owns the application.
func (p *EditPage) OwnerName() string {
	if p.Workspace == nil || p.Workspace.Owner == nil {
		return ""
	}
	return p.Workspace.Owner.DisplayName()
}

// IsOwner reports whether user id owns the application, for the reassign select.
func (p *EditPage) IsOwner(id uuid.UUID) bool { return p.App.OwnerID == id }

// Sections lists the sections the form saves, for the version fields updated after a save.
func (p *EditPage) Sections() []string { return drafts.EditableSections() }
