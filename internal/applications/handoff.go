package applications

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
)

// errNoContactEmail means the submitted data holds no merchant e-mail, so the
// link cannot be e-mailed (validation makes this unreachable for a submission).
var errNoContactEmail = apperr.New(apperr.KindInvalid, "The application has no merchant contact e-mail address, so the link cannot be e-mailed.")

// handoffMailer builds the e-mail that gives the merchant their link.
type handoffMailer struct {
	db           *gorm.DB
	publicURL    *url.URL
	resellerName string
}

// message builds the hand-off e-mail of a linked application, from what was
// submitted (contact, merchant name) and its current owner (the rep named in
// it and the reply-to address). The link in it is the portal's tracking URL,
// never the upstream's link, so that opening it is recorded.
func (h *handoffMailer) message(ctx context.Context, a *models.Application, openToken string) (mail.Message, error) {
	snap, err := MaskedSnapshot(a)
	if err != nil {
		return mail.Message{}, err
	}
	if snap == nil || snap.Contact == nil || snap.Contact.Email == "" {
		return mail.Message{}, errNoContactEmail
	}
	var rep models.User
	err = h.db.WithContext(ctx).Where("id = ?", a.OwnerID).Take(&rep).Error
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return mail.Message{}, fmt.Errorf("load the application's owner: %w", err)
	}
	merchant := ""
	if snap.Business != nil {
		merchant = snap.Business.DBA
	}
	if merchant == "" && snap.LegalEntity != nil {
		merchant = snap.LegalEntity.Name
	}
	content, err := mail.HandoffEmail(mail.HandoffData{
		ResellerName: h.resellerName,
		MerchantName: merchant,
		ContactName:  snap.Contact.Name,
		RepName:      rep.Name,
		RepEmail:     rep.Email,
		Link:         TrackingURL(h.publicURL, openToken),
	})
	if err != nil {
		return mail.Message{}, fmt.Errorf("hand-off e-mail of application %s: %w", a.ID, err)
	}
	id := a.ID
	return mail.Message{
		ApplicationID: &id,
		Kind:          mail.KindHandoff,
		To:            snap.Contact.Email,
		ToName:        snap.Contact.Name,
		ReplyTo:       rep.Email,
		Content:       content,
	}, nil
}

// latestHandoff returns the newest hand-off e-mail of an application, or nil.
func latestHandoff(msgs []mail.Message) *uuid.UUID {
	for _, m := range msgs { // newest first
		if m.Kind == mail.KindHandoff {
			id := m.ID
			return &id
		}
	}
	return nil
}
