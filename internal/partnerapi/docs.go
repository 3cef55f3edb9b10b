package partnerapi

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"html/template"
	"net/http"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/partnerapi/contract"
)

// Docs serves the API's contract: the OpenAPI document and its reference pages,
// rendered in the browser by Redoc, served from the portal itself (no CDN) under its
// content security policy.
type Docs struct {
	// document is the OpenAPI document as JSON, converted on first use.
	document func() ([]byte, error)
	page     *template.Template
	assets   map[string]string
}

// docsPage is the reference pages' HTML: no inline script; api-docs.js loads the
// renderer named by data-renderer. Redoc writes its styles into <style> elements,
// which the policy admits by this response's nonce alone (styled-components reads it
// from the csp-nonce meta element).
const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="csp-nonce" content="{{.Nonce}}">
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

// NewDocs parses the page; asset gives an asset's fingerprinted URL. The document is
// converted to JSON when first asked for, not at start (the tests hold it valid).
func NewDocs(asset func(name string) string) (*Docs, error) {
	tmpl, err := template.New("docs").Parse(docsPage)
	if err != nil {
		return nil, err
	}
	return &Docs{document: sync.OnceValues(contract.JSON), page: tmpl, assets: map[string]string{
		"CSS": asset("css/api-docs.css"), "Script": asset("js/api-docs.js"), "Renderer": asset("vendor/redoc.standalone.js"),
	}}, nil
}

// Document answers the OpenAPI document as JSON; it needs no key.
func (d *Docs) Document(c echo.Context) error {
	doc, err := d.document()
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-cache")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, doc)
}

// Page answers the reference pages. The portal's policy stays as it is but for its
// style-src, which also admits this response's nonce, and its font-src, which admits
// the icon font Redoc carries inside its script (a data: URL).
func (d *Docs) Page(c echo.Context) error {
	nonce := make([]byte, 18)
	_, _ = rand.Read(nonce) // crypto/rand never fails on supported platforms
	n := base64.StdEncoding.EncodeToString(nonce)
	h := c.Response().Header()
	if csp := h.Get("Content-Security-Policy"); csp != "" {
		csp = strings.Replace(csp, "style-src 'self'", "style-src 'self' 'nonce-"+n+"'", 1)
		h.Set("Content-Security-Policy", strings.Replace(csp, "font-src 'self'", "font-src 'self' data:", 1))
	}
	h.Set("Cache-Control", "no-store")
	data := map[string]string{"Nonce": n}
	for k, v := range d.assets {
		data[k] = v
	}
	var page bytes.Buffer
	if err := d.page.Execute(&page, data); err != nil {
		return err
	}
	return c.HTMLBlob(http.StatusOK, page.Bytes())
}
