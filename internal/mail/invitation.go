package mail

import (
	"errors"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
)

var (
	invitationSubject = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/invitation.subject.tmpl"))
	invitationText    = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/invitation.txt.tmpl"))
	invitationHTML    = htmltemplate.Must(htmltemplate.ParseFS(templateFS, "templates/invitation.html.tmpl"))
)

// InvitationData fills the e-mail that invites a new user to choose a password.
type InvitationData struct {
	ResellerName string
	Name         string // the invited user's name, if known
	InviterName  string
	// Link is the one-time /invite/<token> address. It is secret: the bodies show
	// the placeholder, and the outbox seals the link itself.
	Link SecretLink

	Expires string // when the link stops working, in words
	// MerchantName names the merchant a merchant user is invited to, if any.
	MerchantName string
}

// InvitationEmail renders the invitation in plain text and HTML.
func InvitationEmail(d InvitationData) (Content, error) {
	if d.Link.IsZero() {
		return Content{}, errors.New("invitation e-mail: the link is required")
	}
	if strings.TrimSpace(d.ResellerName) == "" {
		return Content{}, errors.New("invitation e-mail: the reseller name is required")
	}
	c, err := render(d, invitationSubject, invitationText, invitationHTML)
	if err != nil {
		return Content{}, err
	}
	c.SecretLink = d.Link
	return c, nil
}
