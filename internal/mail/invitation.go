package mail

import (
	"bytes"
	"errors"
	htmltemplate "html/template"
	"net/url"
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
	Link         string // the one-time /invite/<token> address
	Expires      string // when the link stops working, in words
	// MerchantName names the merchant a merchant user is invited to, if any.
	MerchantName string
}

// InvitationEmail renders the invitation in plain text and HTML.
func InvitationEmail(d InvitationData) (Content, error) {
	u, err := url.Parse(d.Link)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Content{}, errors.New("invitation e-mail: the link must be an absolute http(s) URL")
	}
	if strings.TrimSpace(d.ResellerName) == "" {
		return Content{}, errors.New("invitation e-mail: the reseller name is required")
	}
	var subject, text, html bytes.Buffer
	if err := invitationSubject.Execute(&subject, d); err != nil {
		return Content{}, err
	}
	if err := invitationText.Execute(&text, d); err != nil {
		return Content{}, err
	}
	if err := invitationHTML.Execute(&html, d); err != nil {
		return Content{}, err
	}
	return Content{Subject: oneLine(subject.String()), Text: text.String(), HTML: html.String()}, nil
}
