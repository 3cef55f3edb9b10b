package handoff

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
)

// ErrNoContactEmail means the submitted data holds no merchant e-mail, so the
// link cannot be e-mailed (validation makes this unreachable for a submission).
var ErrNoContactEmail = apperr.New(apperr.KindInvalid, "The application has no merchant contact e-mail address, so the link cannot be e-mailed.")

// Mailer builds the e-mail that gives the merchant their link.
type Mailer struct {
	apps         *applications.Store
	publicURL    *url.URL
	resellerName string
}

// Message builds the hand-off e-mail of a linked application, from what was
// submitted (contact, merchant name) and its current owner (the rep named in
// it and the reply-to address). The link in it is the portal's tracking URL,
// never the upstream's link, so that opening it is recorded.
func (h *Mailer) Message(ctx context.Context, a *models.Application, openToken string) (mail.Message, error) {
	msg, data, err := h.envelope(ctx, nil, a, openToken)
	if err != nil {
		return mail.Message{}, err
	}
	if msg.Content, err = mail.HandoffEmail(data); err != nil {
		return mail.Message{}, fmt.Errorf("hand-off e-mail of application %s: %w", a.ID, err)
	}
	return msg, nil
}

// envelope addresses an e-mail carrying the merchant's link (to the submitted contact,
// replies to the owner) and gathers what its text says. It reads inside tx when there
// is one, so that a caller holding a transaction never waits for a second connection.
func (h *Mailer) envelope(ctx context.Context, tx pgx.Tx, a *models.Application, openToken string) (mail.Message, mail.HandoffData, error) {
	snap, err := applications.MaskedSnapshot(a)
	if err != nil {
		return mail.Message{}, mail.HandoffData{}, err
	}
	if snap == nil || snap.Contact == nil || snap.Contact.Email == "" {
		return mail.Message{}, mail.HandoffData{}, ErrNoContactEmail
	}
	rep := &models.User{}
	var q database.Querier // the pool
	if tx != nil {
		q = tx
	}
	if owner, err := h.apps.User(ctx, q, a.OwnerID); err == nil {
		rep = owner
	} else if !errors.Is(err, models.ErrNotFound) {
		return mail.Message{}, mail.HandoffData{}, fmt.Errorf("load the application's owner: %w", err)
	}
	merchant := ""
	if snap.Business != nil {
		merchant = snap.Business.DBA
	}
	if merchant == "" && snap.LegalEntity != nil {
		merchant = snap.LegalEntity.Name
	}
	data := mail.HandoffData{
		ResellerName: h.resellerName,
		MerchantName: merchant,
		ContactName:  snap.Contact.Name,
		RepName:      rep.Name,
		RepEmail:     rep.Email,
	}
	// A SecretLink: the stored bodies show a placeholder, and the outbox seals the link.
	if data.Link, err = mail.NewSecretLink(TrackingURL(h.publicURL, openToken)); err != nil {
		return mail.Message{}, mail.HandoffData{}, err
	}
	id := a.ID
	msg := mail.Message{
		ApplicationID: &id,
		Kind:          mail.KindHandoff,
		To:            snap.Contact.Email,
		ToName:        snap.Contact.Name,
		ReplyTo:       rep.Email,
	}
	return msg, data, nil
}

// LatestHandoff returns the newest hand-off e-mail of an application, or nil.
func LatestHandoff(msgs []mail.Message) *uuid.UUID {
	for _, m := range msgs { // newest first
		if m.Kind == mail.KindHandoff {
			id := m.ID
			return &id
		}
	}
	return nil
}

// NewMailer returns the builder of hand-off e-mails; publicURL is the portal's
// address, for the tracking link, and resellerName signs the e-mail.
func NewMailer(apps *applications.Store, publicURL *url.URL, resellerName string) *Mailer {
	return &Mailer{apps: apps, publicURL: publicURL, resellerName: resellerName}
}
