package mail

import (
	"embed"
	"errors"
	htmltemplate "html/template"
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
	// Link is the portal's tracking URL (handoff.TrackingURL), which records the
	// open and forwards to the upstream's page. It is secret: the bodies show the
	// placeholder, and the outbox seals the link itself.
	Link SecretLink
}

// HandoffEmail renders the e-mail that hands the application to the merchant,
// in plain text and HTML. The HTML part escapes every value.
func HandoffEmail(d HandoffData) (Content, error) {
	if d.Link.IsZero() {
		return Content{}, errors.New("hand-off e-mail: the link is required")
	}
	if strings.TrimSpace(d.ResellerName) == "" || strings.TrimSpace(d.MerchantName) == "" {
		return Content{}, errors.New("hand-off e-mail: the reseller and merchant names are required")
	}
	c, err := render(d, handoffSubject, handoffText, handoffHTML)
	if err != nil {
		return Content{}, err
	}
	c.SecretLink = d.Link
	return c, nil
}
