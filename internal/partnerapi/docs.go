package partnerapi

import (
	"bytes"
	"html/template"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/partnerapi/contract"
)

// Docs serves the API's contract: the OpenAPI document and its reference pages,
// rendered in the browser by Redoc, served from the portal itself (no CDN) under its
// content security policy.
type Docs struct {
	document []byte
	page     []byte
}

// docsPage is the reference pages' HTML: no inline script or style; api-docs.js loads
// the renderer named by data-renderer.
const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Partner API reference</title>
<link rel="stylesheet" href="{{.CSS}}">
</head>
<body>
<main id="api-reference" data-spec="/api/v1/openapi.json" data-renderer="{{.Renderer}}">
<noscript><p>The reference pages need JavaScript. The document itself is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p></noscript>
</main>
<script type="module" src="{{.Script}}"></script>
</body>
</html>
`

// NewDocs loads the document (a broken one stops the start) and lays out the page;
// asset gives an asset's fingerprinted URL.
func NewDocs(asset func(name string) string) (*Docs, error) {
	doc, err := contract.JSON()
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("docs").Parse(docsPage)
	if err != nil {
		return nil, err
	}
	var page bytes.Buffer
	err = tmpl.Execute(&page, map[string]string{
		"CSS": asset("css/api-docs.css"), "Script": asset("js/api-docs.js"), "Renderer": asset("vendor/redoc.standalone.js"),
	})
	if err != nil {
		return nil, err
	}
	return &Docs{document: doc, page: page.Bytes()}, nil
}

// Document answers the OpenAPI document as JSON; it needs no key.
func (d *Docs) Document(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-cache")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, d.document)
}

// Page answers the reference pages.
func (d *Docs) Page(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-cache")
	return c.HTMLBlob(http.StatusOK, d.page)
}
