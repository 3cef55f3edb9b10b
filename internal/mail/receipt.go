package mail

import (
	"bytes"
	"errors"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
)

var (
	receiptSubject = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/receipt.subject.tmpl"))
	receiptText    = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/receipt.txt.tmpl"))
	receiptHTML    = htmltemplate.Must(htmltemplate.ParseFS(templateFS, "templates/receipt.html.tmpl"))
)

// ReceiptData fills a payment receipt. Card is the brand and last four at
// most ("Visa ending 1111"): never more digits, never the expiry.
type ReceiptData struct {
	ResellerName  string
	MerchantName  string
	What          string // "payment", "refund", ...
	Date          string
	Amount, Tip   string // empty when there is no tip
	Total         string
	Card          string
	ApprovalCode  string
	Reference     string
	TransactionID string
}

// ReceiptEmail renders a receipt in plain text and HTML.
func ReceiptEmail(d ReceiptData) (Content, error) {
	if strings.TrimSpace(d.ResellerName) == "" || strings.TrimSpace(d.MerchantName) == "" {
		return Content{}, errors.New("receipt e-mail: the reseller and merchant names are required")
	}
	var subject, text, html bytes.Buffer
	if err := receiptSubject.Execute(&subject, d); err != nil {
		return Content{}, err
	}
	if err := receiptText.Execute(&text, d); err != nil {
		return Content{}, err
	}
	if err := receiptHTML.Execute(&html, d); err != nil {
		return Content{}, err
	}
	return Content{Subject: oneLine(subject.String()), Text: text.String(), HTML: html.String()}, nil
}
