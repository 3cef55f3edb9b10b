package reminders

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/states"
)

// MerchantMailer queues the e-mail that reminds a merchant of their link, inside the
// caller's transaction. *handoff.Resender implements it: reminders take the resend's
// path, so they carry the same tracked link a resend does.
type MerchantMailer interface {
	SendReminder(ctx context.Context, tx pgx.Tx, a *models.Application, opened bool) (*mail.Message, error)
}

// Outbox queues a message inside the caller's transaction. *mail.Outbox implements it.
type Outbox interface {
	Enqueue(ctx context.Context, tx pgx.Tx, m mail.Message) (*mail.Message, error)
}

// Deps are the collaborators of the reminders.
type Deps struct {
	Apps      *applications.Store
	Merchants MerchantMailer
	Outbox    Outbox
	// PublicURL is the portal's address, for links to applications in reps' e-mails.
	PublicURL    *url.URL
	ResellerName string
	Now          func() time.Time
	Log          *slog.Logger
}

// Service sends reminders and serves their pages.
type Service struct{ d Deps }

// NewService returns the reminders service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

// Report says what one run sent, by kind, and how many reminders failed to go out
// (they are tried again on the next run).
type Report struct {
	Sent   map[Kind]int
	Failed int
}

// Run sends every reminder due now. It is safe to run twice, or on two instances at
// once: each reminder is claimed by a unique row, in the transaction that queues it.
func (s *Service) Run(ctx context.Context) (Report, error) {
	rep := Report{Sent: map[Kind]int{}}
	set, err := loadSettings(ctx, s.d.Apps.Querier())
	if err != nil {
		return rep, err
	}
	now := s.d.Now().UTC()
	for _, k := range []Kind{KindNotOpened, KindNotAccepted, KindProcessingPending} {
		if !set[k].Enabled {
			continue
		}
		for after := uuid.Nil; ; {
			list, err := findDue(ctx, s.d.Apps.Querier(), set[k], now, uuid.Nil, after)
			if err != nil {
				return rep, err
			}
			for _, d := range list {
				sent, err := s.sendOne(ctx, k, d, now)
				switch {
				case ctx.Err() != nil:
					return rep, ctx.Err()
				case err != nil:
					rep.Failed++
					s.d.Log.Warn("reminder not sent", "kind", k, "application_id", d.AppID, "err", err)
				case sent:
					rep.Sent[k]++
				}
			}
			if len(list) < batchSize {
				break
			}
			after = list[len(list)-1].AppID
		}
	}
	if set[KindStaleDrafts].Enabled {
		n, failed, err := s.runDigests(ctx, set[KindStaleDrafts], now)
		rep.Sent[KindStaleDrafts] += n
		rep.Failed += failed
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// sendOne sends reminder d.Sent+1 of its series, unless the state moved on or another
// run sent it first.
func (s *Service) sendOne(ctx context.Context, k Kind, d due, now time.Time) (bool, error) {
	sent := false
	err := s.d.Apps.InTx(ctx, func(tx pgx.Tx) error {
		if ok, err := stillDue(ctx, tx, k, d.AppID, d.Episode); err != nil || !ok {
			return err
		}
		seq := d.Sent + 1
		rowID, won, err := claim(ctx, tx, k, d.AppID, d.Episode, seq, now)
		if err != nil || !won {
			return err
		}
		a, err := s.d.Apps.Get(ctx, tx, d.AppID)
		if err != nil {
			return err
		}
		var msg *mail.Message
		if k.ToMerchant() {
			msg, err = s.d.Merchants.SendReminder(ctx, tx, a, k == KindNotAccepted)
		} else {
			msg, err = s.repNotice(ctx, tx, a)
		}
		if err != nil {
			return err
		}
		if err := setMessage(ctx, tx, []int64{rowID}, msg.ID); err != nil {
			return err
		}
		sent = true
		return recordSent(ctx, tx, a.ID, k, seq, msg.ID, now)
	})
	if err != nil {
		return false, err
	}
	if sent {
		s.d.Log.Info("reminder sent", "kind", k, "application_id", d.AppID, "number", d.Sent+1)
	}
	return sent, nil
}

func recordSent(ctx context.Context, tx pgx.Tx, id uuid.UUID, k Kind, seq int, messageID uuid.UUID, now time.Time) error {
	return audit.Record(ctx, tx, audit.Event{Subject: audit.Application(id), Action: audit.ActionReminderSent,
		Details: audit.Details{Reminder: string(k), Number: seq, MessageID: messageID.String()}, At: now})
}

// repNotice tells the owner of a that the processor needs more information.
func (s *Service) repNotice(ctx context.Context, tx pgx.Tx, a *models.Application) (*mail.Message, error) {
	owner, err := s.d.Apps.User(ctx, tx, a.OwnerID)
	if err != nil {
		return nil, fmt.Errorf("load the application's owner: %w", err)
	}
	state := states.Upstream("processingPending")
	content, err := mail.RepNoticeEmail(mail.RepNoticeData{
		ResellerName: s.d.ResellerName, RepName: owner.Name, MerchantName: merchantName(a, location(owner.TimeZone)),
		Explanation: state.Explanation, Action: state.Action, Link: s.link(applications.Path(a.ID)),
	})
	if err != nil {
		return nil, err
	}
	id := a.ID
	return s.d.Outbox.Enqueue(ctx, tx, mail.Message{ApplicationID: &id, Kind: mail.KindRepNotice, To: owner.Email, ToName: owner.Name, Content: content})
}

// link is an absolute address of the portal.
func (s *Service) link(path string) string {
	return strings.TrimRight(s.d.PublicURL.String(), "/") + path
}

// merchantName names an application in e-mails to reps, whose zone is loc.
func merchantName(a *models.Application, loc *time.Location) string {
	switch {
	case a.DBA != "":
		return a.DBA
	case a.LegalName != "":
		return a.LegalName
	}
	return "an unnamed draft created " + a.CreatedAt.In(loc).Format("2006-01-02")
}

// errNothingToList rolls back a digest that found no draft to list after all.
var errNothingToList = errors.New("reminders: no draft to list")
