package app

import (
	"html/template"

	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/web"
)

// viewFuncs are the template functions that need the portal's own pieces.
func viewFuncs(static *web.Static) template.FuncMap {
	return template.FuncMap{
		"asset": static.URL,
		"money": payments.FormatCents,
	}
}
