package accounts

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// applyForm reads fields from a posted form into a copy of data. It returns
// the copy, the values as typed and the message of every wrong field. On
// an edit page (edit true) an emptied optional field is removed and an
// empty input for personal data keeps the stored value (the page never
// shows it); on the details page every field is a missing required one.
func (s *Server) applyForm(now time.Time, fields []fieldSpec, data map[string]any, form url.Values, edit bool) (map[string]any, map[string]string, map[string]string) {
	merged := cloneJSON(data)
	typed, errs := map[string]string{}, map[string]string{}
	for _, f := range fields {
		raw := strings.TrimSpace(form.Get(f.Path))
		typed[f.Path] = raw
		stored, has := getPath(data, f.Path)
		has = has && text(stored) != ""
		if raw == "" {
			switch {
			case edit && f.Secret && has:
			case f.Required || !edit:
				errs[f.Path] = "This detail is required."
			default:
				deletePath(merged, f.Path)
			}
			continue
		}
		v, msg := parseValue(f, raw, now)
		if msg != "" {
			errs[f.Path] = msg
			continue
		}
		if !has || !sameValue(f, stored, v) {
			setPath(merged, f.Path, v)
		}
	}
	return merged, typed, errs
}

// wholeErrors applies the rules that span fields (owners' shares, the
// number of owners) and puts their message on the field it concerns.
func wholeErrors(merged map[string]any, fields []fieldSpec) map[string]string {
	e := checkWhole(merged)
	if e == nil || len(fields) == 0 {
		return nil
	}
	at := fields[0].Path
	for _, f := range fields {
		if strings.HasSuffix(f.Path, ".percentOwnership") {
			at = f.Path
			break
		}
	}
	return map[string]string{at: sentence(strings.TrimPrefix(e.Message, e.Field+": "))}
}

// recordChanges adds to the application's history what a save changed,
// values written as the pages show them (personal data masked).
func (s *Server) recordChanges(c *change, a *appRecord, fields []fieldSpec, before, after map[string]any, by string) {
	var changed []FieldChange
	for _, f := range fields {
		old, _ := getPath(before, f.Path)
		now, _ := getPath(after, f.Path)
		if text(old) == text(now) {
			continue
		}
		label := f.Label
		if strings.HasPrefix(f.Path, "owners[") {
			label = "Owner " + ownerNumber(f.Path) + ": " + label
		}
		changed = append(changed, FieldChange{Path: f.Path, Label: label, From: displayValue(f, old), To: displayValue(f, now)})
	}
	if len(changed) == 0 {
		return
	}
	a.Changes = append(a.Changes, DataChange{At: c.now, By: by, Fields: changed})
	a.Updated = c.now
}

// handleEditPage shows every value of one section in a form: the merchant
// can change any of them. Personal data shows only its last four
// characters; its input replaces it when filled in.
func (s *Server) handleEditPage(w http.ResponseWriter, r *http.Request) {
	a := s.merchantPage(w, r)
	if a == nil {
		return
	}
	data := a.values()
	sec, ok := findSection(data, r.PathValue("section"))
	if !ok {
		s.pages.Notice(w, http.StatusNotFound, "Page not found", "This part of the application does not exist.")
		return
	}
	s.pages.Render(w, http.StatusOK, "edit", "Change "+strings.ToLower(sec.Title), s.editView(a, sec, data, nil, nil))
}

func (s *Server) editView(a *appRecord, sec section, data map[string]any, typed, errs map[string]string) editView {
	fields := s.sectionFields(sec)
	v := editView{
		pageBase: pageBase{ID: a.ID, Name: nameOf(data, a.ID), Pending: a.Pending, Errors: errorSummary(fields, errs)},
		Title:    "Change " + strings.ToLower(sec.Title), Action: pagePrefix + a.ID + "/edit/" + sec.Slug,
		BackURL: pagePrefix + a.ID, Fields: formFields(fields, data, typed, errs, false),
	}
	if sec.Key == "banking" {
		v.BankLinkURL = pagePrefix + a.ID + "/bank-link?return=edit"
	}
	return v
}

// handleEditSubmit saves a section: every value checked as the API checks
// it, the changes kept in the application's history.
func (s *Server) handleEditSubmit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("applicationId")
	if !readForm(w, r) {
		return
	}
	var view editView
	found := true
	done := false
	err := s.update(func(c *change) error {
		a, err := loadApp(c.tx, id)
		if err != nil {
			return err
		}
		if !a.Linked || !editable(a) {
			done = true
			return nil
		}
		data := a.values()
		sec, ok := findSection(data, r.PathValue("section"))
		if !ok {
			found = false
			return nil
		}
		fields := s.sectionFields(sec)
		merged, typed, errs := s.applyForm(c.now, fields, data, r.PostForm, true)
		if len(errs) == 0 {
			errs = wholeErrors(merged, fields)
		}
		if len(errs) > 0 {
			view = s.editView(a, sec, data, typed, errs)
			return errFormInvalid
		}
		s.recordChanges(c, a, fields, data, merged, "merchant")
		a.setValues(merged)
		return saveApp(c.tx, a)
	})
	switch {
	case errors.Is(err, errFormInvalid):
		s.pages.Render(w, http.StatusUnprocessableEntity, "edit", view.Title, view)
	case errors.Is(err, ErrNotFound):
		s.linkNotFound(w)
	case err != nil:
		s.serverError(w, err)
	case done:
		http.Redirect(w, r, pagePrefix+id+"/done", http.StatusSeeOther)
	case !found:
		s.pages.Notice(w, http.StatusNotFound, "Page not found", "This part of the application does not exist.")
	default:
		http.Redirect(w, r, pagePrefix+id+"?saved=1", http.StatusSeeOther)
	}
}
