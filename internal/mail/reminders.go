package mail

import (
	"bytes"
	"errors"
	htmltemplate "html/template"
	"net/url"
	"strings"
	texttemplate "text/template"
)

// The e-mails of reminders (internal/reminders): to the merchant, with the tracked
// link again; to the rep, when the processor needs more information; and each rep's
// weekly digest of drafts left untouched.
var (
	reminderSubject  = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/reminder.subject.tmpl"))
	reminderText     = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/reminder.txt.tmpl"))
	reminderHTML     = htmltemplate.Must(htmltemplate.ParseFS(templateFS, "templates/reminder.html.tmpl"))
	repNoticeSubject = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/rep_notice.subject.tmpl"))
	repNoticeText    = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/rep_notice.txt.tmpl"))
	repNoticeHTML    = htmltemplate.Must(htmltemplate.ParseFS(templateFS, "templates/rep_notice.html.tmpl"))
	digestSubject    = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/digest.subject.tmpl"))
	digestText       = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/digest.txt.tmpl"))
	digestHTML       = htmltemplate.Must(htmltemplate.ParseFS(templateFS, "templates/digest.html.tmpl"))
)

// The kinds of the reminders' messages.
const (
	// KindHandoffReminder reminds the merchant of their link.
	KindHandoffReminder Kind = "handoff_reminder"
	// KindRepNotice tells a rep about one of their applications.
	KindRepNotice Kind = "rep_notice"
	// KindDigest is a rep's weekly digest of drafts left untouched.
	KindDigest Kind = "digest"
)

// ReminderData fills the merchant's reminder: the hand-off e-mail's data, and whether
// the merchant has already started at the processor.
type ReminderData struct {
	HandoffData
	// Opened says the merchant started but did not accept.
	Opened bool
}

// ReminderEmail renders the reminder of the merchant's link.
func ReminderEmail(d ReminderData) (Content, error) {
	if d.Link.IsZero() {
		return Content{}, errors.New("reminder e-mail: the link is required")
	}
	if strings.TrimSpace(d.ResellerName) == "" || strings.TrimSpace(d.MerchantName) == "" {
		return Content{}, errors.New("reminder e-mail: the reseller and merchant names are required")
	}
	c, err := render(d, reminderSubject, reminderText, reminderHTML)
	if err != nil {
		return Content{}, err
	}
	c.SecretLink = d.Link
	return c, nil
}

// RepNoticeData fills the e-mail telling a rep that the processor needs more information.
type RepNoticeData struct {
	ResellerName string
	RepName      string
	MerchantName string
	// Explanation and Action say what the state means and what the rep can do, in the
	// words of the state table (internal/states).
	Explanation, Action string
	// Link is the application's page in the portal.
	Link string
}

// RepNoticeEmail renders the rep's notice.
func RepNoticeEmail(d RepNoticeData) (Content, error) {
	if err := checkLink("rep notice", d.Link); err != nil {
		return Content{}, err
	}
	return render(d, repNoticeSubject, repNoticeText, repNoticeHTML)
}

// DigestDraft is one draft of a digest.
type DigestDraft struct {
	Name        string
	LastChanged string // a date, in the rep's zone
	Link        string
}

// DigestData fills a rep's weekly digest.
type DigestData struct {
	ResellerName string
	RepName      string
	StaleDays    int
	Drafts       []DigestDraft
}

// DigestEmail renders the weekly digest; it needs at least one draft.
func DigestEmail(d DigestData) (Content, error) {
	if len(d.Drafts) == 0 {
		return Content{}, errors.New("digest e-mail: no drafts")
	}
	for _, dr := range d.Drafts {
		if err := checkLink("digest e-mail", dr.Link); err != nil {
			return Content{}, err
		}
	}
	return render(d, digestSubject, digestText, digestHTML)
}

func checkLink(what, link string) error {
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New(what + ": the link must be an absolute http(s) URL")
	}
	return nil
}

// render executes a message's three templates.
func render(d any, subject, text *texttemplate.Template, html *htmltemplate.Template) (Content, error) {
	var s, t, h bytes.Buffer
	if err := subject.Execute(&s, d); err != nil {
		return Content{}, err
	}
	if err := text.Execute(&t, d); err != nil {
		return Content{}, err
	}
	if err := html.Execute(&h, d); err != nil {
		return Content{}, err
	}
	return Content{Subject: oneLine(s.String()), Text: t.String(), HTML: h.String()}, nil
}
