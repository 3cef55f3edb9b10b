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
	noticeSubject = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/notice.subject.tmpl"))
	noticeText    = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/notice.txt.tmpl"))
	noticeHTML    = htmltemplate.Must(htmltemplate.ParseFS(templateFS, "templates/notice.html.tmpl"))
)

// NoticeData fills a short notice: a few paragraphs and one link into the
// portal (a merchant user's new access, an alert about a merchant).
type NoticeData struct {
	ResellerName string
	Name         string // the recipient's name, if known
	Subject      string
	Paragraphs   []string
	Link         string // an absolute http(s) address in the portal
	LinkText     string
}

// NoticeEmail renders a notice in plain text and HTML.
func NoticeEmail(d NoticeData) (Content, error) {
	u, err := url.Parse(d.Link)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Content{}, errors.New("notice e-mail: the link must be an absolute http(s) URL")
	}
	if strings.TrimSpace(d.ResellerName) == "" || strings.TrimSpace(d.Subject) == "" {
		return Content{}, errors.New("notice e-mail: the reseller name and subject are required")
	}
	if d.LinkText == "" {
		d.LinkText = "Open the portal"
	}
	var subject, text, html bytes.Buffer
	if err := noticeSubject.Execute(&subject, d); err != nil {
		return Content{}, err
	}
	if err := noticeText.Execute(&text, d); err != nil {
		return Content{}, err
	}
	if err := noticeHTML.Execute(&html, d); err != nil {
		return Content{}, err
	}
	return Content{Subject: oneLine(subject.String()), Text: text.String(), HTML: html.String()}, nil
}
