package dashboard

import (
	"html/template"
	"strings"
)

// untitled names an application that has neither DBA nor legal name yet.
const untitled = "Untitled application"

// NameHTML is the merchant cell's content: the name, linking to the application (in bold
// and unlinked in the list of deleted ones), and the legal name beneath a DBA. It is
// built here rather than in the template because the list repeats it 25 times and each
// action of html/template costs a reflective call of its escaper; the markup is what
// the template wrote.
func (r ListRow) NameHTML(deleted bool) template.HTML {
	name := template.HTMLEscapeString(r.Name())
	if name == "" {
		name = untitled
	}
	var b strings.Builder
	b.Grow(160)
	if deleted {
		b.WriteString("<strong>")
		b.WriteString(name)
		b.WriteString("</strong>")
	} else {
		b.WriteString(`<a href="/applications/`)
		b.WriteString(r.ID.String())
		b.WriteString(`">`)
		b.WriteString(name)
		b.WriteString("</a>")
	}
	if r.DBA != "" && r.LegalName != "" {
		b.WriteString("<br><small>")
		b.WriteString(template.HTMLEscapeString(r.LegalName))
		b.WriteString("</small>")
	}
	return template.HTML(b.String()) // the name and legal name are escaped above; the id is a UUID
}

// RowView is the dot of a row of the list (the partial "dashboard/row"): the row and what
// of the page the row shows. The partial is rendered once per distinct RowView and then
// reused, so it holds the CSRF token only in the list of deleted applications, whose rows
// carry a form: elsewhere a row is the same for every session.
type RowView struct {
	ListRow
	Form    RowForm
	IsAdmin bool
	// CSRFToken is the page's token in the list of deleted applications, else "".
	CSRFToken string
}

// RowForm is what a row needs of the filter form.
type RowForm struct{ Deleted bool }

// Row is the dot of the row partial for r on this page.
func (v *ListView) Row(r ListRow, csrfToken string) RowView {
	rv := RowView{ListRow: r, Form: RowForm{Deleted: v.Form.Deleted}, IsAdmin: v.IsAdmin}
	if v.Form.Deleted {
		rv.CSRFToken = csrfToken
	}
	return rv
}
