package app

import (
	"html/template"
	"strings"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/web"
)

// viewFuncs are the template functions that need the portal's own pieces.
func viewFuncs(static *web.Static) template.FuncMap {
	return ViewFuncs(static.URL)
}

// ViewFuncs are the template functions of the portal's own pieces: asset gives an
// asset's fingerprinted URL. Benchmarks of rendering build their renderer with them.
func ViewFuncs(asset func(name string) string) template.FuncMap {
	return template.FuncMap{
		"asset":      asset,
		"money":      payments.FormatCents,
		"optionTags": optionTags,
		"address":    address,
	}
}

// address writes an e-mail address with a line-break opportunity (<wbr>) after its @
// and before each dot, so a narrow table cell breaks it between its parts, never
// inside a word: jordan@<wbr>cornerbakery<wbr>.example.
func address(s string) template.HTML {
	var b strings.Builder
	for i, r := range s {
		if r == '.' && i > 0 {
			b.WriteString("<wbr>")
		}
		b.WriteString(template.HTMLEscapeString(string(r)))
		if r == '@' {
			b.WriteString("<wbr>")
		}
	}
	return template.HTML(b.String()) // every rune escaped; only <wbr> added
}

// optionTags writes the <option> elements of a select, as
// {{range .}}<option value="{{.Value}}" {{if .Selected}}selected{{end}}>{{.Label}}</option>{{end}}
// would, in one call: the filter selects of a list page hold dozens of options, and each
// action of html/template costs a reflective call of its escaper.
func optionTags(opts []drafts.Option) template.HTML {
	var b strings.Builder
	for _, o := range opts {
		b.WriteString(`<option value="`)
		b.WriteString(template.HTMLEscapeString(o.Value))
		if o.Selected {
			b.WriteString(`" selected>`)
		} else {
			b.WriteString(`" >`)
		}
		b.WriteString(template.HTMLEscapeString(o.Label))
		b.WriteString(`</option>`)
	}
	return template.HTML(b.String()) // every value and label escaped above
}
