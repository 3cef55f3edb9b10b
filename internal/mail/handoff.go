package mail

import (
	"bytes"
	"embed"
	"errors"
	htmltemplate "html/template"
	"net/url"
	"strings"
	texttemplate "text/template"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// The templates are parsed once; a broken one fails the package's tests and
// the start of the portal, never a delivery.
var (
	handoffSubject = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/handoff.subject.tmpl"))
	handoffText    = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/handoff.txt.tmpl"))
	handoffHTML    = htmltemplate.Must(htmltemplate.ParseFS(templateFS, "templates/handoff.html.tmpl"))
)

// HandoffData fills the hand-off e-mail.
type HandoffData struct {
	ResellerName string
	MerchantName string // the business's DBA, or its legal name
	ContactName  string // whom the e-mail greets
	RepName      string
	RepEmail     string
	// Link is the portal's tracking URL (applications.TrackingURL), which
	// records the open and forwards to the upstream's page.
	Link string
}

// HandoffEmail renders the e-mail that hands the application to the merchant,
// in plain text and HTML. The HTML part escapes every value.
func HandoffEmail(d HandoffData) (Content, error) {
	u, err := url.Parse(d.Link)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Content{}, errors.New("hand-off e-mail: the link must be an absolute http(s) URL")
	}
	if strings.TrimSpace(d.ResellerName) == "" || strings.TrimSpace(d.MerchantName) == "" {
		return Content{}, errors.New("hand-off e-mail: the reseller and merchant names are required")
	}
	var subject, text, html bytes.Buffer
	if err := handoffSubject.Execute(&subject, d); err != nil {
		return Content{}, err
	}
	if err := handoffText.Execute(&text, d); err != nil {
		return Content{}, err
	}
	if err := handoffHTML.Execute(&html, d); err != nil {
		return Content{}, err
	}
	return Content{Subject: oneLine(subject.String()), Text: text.String(), HTML: html.String()}, nil
}
