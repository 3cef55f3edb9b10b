package mail

import (
	"context"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/validation"
)

// Outbox stores messages and schedules their delivery.
type Outbox struct {
	pool  *pgxpool.Pool
	queue *jobs.Queue
	now   func() time.Time
	// ring seals messages' secret links (secret_link.go).
	ring *fieldcrypt.KeyRing
}

// Deps is what the outbox needs.
type Deps struct {
	Pool  *pgxpool.Pool
	Queue *jobs.Queue
	// Sender delivers; nil (no SMTP host configured) holds every message.
	Sender Sender
	// SMTP is the configuration, used to keep credentials out of stored errors.
	SMTP config.SMTPConfig
	// KeyRing seals messages' secret links; messages without one need none.
	KeyRing *fieldcrypt.KeyRing
	Now     func() time.Time
	Log     *slog.Logger
}

// NewOutbox returns the outbox and registers its delivery worker on d.Queue,
// so it must be built while the portal is wired, before the queue starts.
func NewOutbox(d Deps) *Outbox {
	o := &Outbox{pool: d.Pool, queue: d.Queue, now: d.Now, ring: d.KeyRing}
	jobs.Register(d.Queue, &deliveryWorker{
		pool: d.Pool, sender: d.Sender, smtp: d.SMTP, now: d.Now, retryDelay: d.Queue.RetryDelay, log: d.Log, outbox: o,
	})
	return o
}

// Enqueue stores m as pending and schedules its delivery. With tx, both happen
// inside the caller's transaction, so the message exists exactly when the
// caller's change commits; with a nil tx the outbox uses a transaction of its
// own. The fields ID, Status, Attempts and CreatedAt are set here.
func (o *Outbox) Enqueue(ctx context.Context, tx pgx.Tx, m Message) (*Message, error) {
	if err := validate(&m); err != nil {
		return nil, err
	}
	m.ID = uuid.New()
	if err := o.sealLink(&m); err != nil {
		return nil, err
	}
	m.Status = StatusPending
	m.Attempts, m.LastError, m.SentAt, m.NextAttemptAt = 0, "", nil, nil
	m.CreatedAt = o.now().UTC()
	err := o.inTx(ctx, tx, func(tx pgx.Tx) error {
		if err := insertMessage(ctx, tx, &m); err != nil {
			return err
		}
		_, err := o.queue.InsertTx(ctx, tx, DeliverArgs{MessageID: m.ID}, deliverInsertOpts())
		return err
	})
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// Resend queues a fresh copy of message id (same recipient and content) and
// returns the copy; the original keeps its own record. actor is who asked, if a
// person did. It is the way to retry a held or failed message, and the way a
// rep sends a merchant their link again.
func (o *Outbox) Resend(ctx context.Context, tx pgx.Tx, id uuid.UUID, actor *uuid.UUID) (*Message, error) {
	var q querier = o.pool
	if tx != nil {
		q = tx
	}
	orig, err := getMessage(ctx, q, id)
	if err != nil {
		return nil, err
	}
	link, err := o.openLink(orig)
	if err != nil {
		return nil, err
	}
	cp := Message{
		ApplicationID: orig.ApplicationID, Kind: orig.Kind,
		To: orig.To, ToName: orig.ToName, ReplyTo: orig.ReplyTo,
		Content: orig.Content, ResentFrom: &orig.ID, CreatedBy: actor,
	}
	cp.SecretLink = secretLinkOf(link)
	return o.Enqueue(ctx, tx, cp)
}

// Get returns one message, or models.ErrNotFound.
func (o *Outbox) Get(ctx context.Context, id uuid.UUID) (*Message, error) {
	return getMessage(ctx, o.pool, id)
}

// ForApplication lists the messages about one application, newest first.
func (o *Outbox) ForApplication(ctx context.Context, applicationID uuid.UUID) ([]Message, error) {
	return o.ForApplicationTx(ctx, nil, applicationID)
}

// ForApplicationTx is ForApplication read inside tx (the pool when nil), for a caller
// that must not take a second connection while its transaction holds one.
func (o *Outbox) ForApplicationTx(ctx context.Context, tx pgx.Tx, applicationID uuid.UUID) ([]Message, error) {
	var q querier = o.pool
	if tx != nil {
		q = tx
	}
	return listMessages(ctx, q, `WHERE application_id = $1 ORDER BY created_at DESC, id DESC`, applicationID)
}

// ListParams selects one page of the outbox.
type ListParams struct {
	// Status filters by delivery state; empty means all.
	Status Status
	// Page counts from 1.
	Page    int
	PerPage int
}

// ListPage is one page of the outbox, newest first.
type ListPage struct {
	Messages []Message
	Page     int
	HasMore  bool
}

// List returns one page of the outbox, newest first.
func (o *Outbox) List(ctx context.Context, p ListParams) (*ListPage, error) {
	p.Page = max(p.Page, 1)
	if p.PerPage < 1 || p.PerPage > 200 {
		p.PerPage = 50
	}
	// One row more than the page tells whether another page follows.
	limit, offset := p.PerPage+1, (p.Page-1)*p.PerPage
	var msgs []Message
	var err error
	if p.Status != "" {
		msgs, err = listMessages(ctx, o.pool, `WHERE status = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, p.Status, limit, offset)
	} else {
		msgs, err = listMessages(ctx, o.pool, `ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2`, limit, offset)
	}
	if err != nil {
		return nil, err
	}
	page := &ListPage{Messages: msgs, Page: p.Page}
	if len(msgs) > p.PerPage {
		page.Messages, page.HasMore = msgs[:p.PerPage], true
	}
	return page, nil
}

// inTx runs fn in tx, or in a transaction of its own when tx is nil.
func (o *Outbox) inTx(ctx context.Context, tx pgx.Tx, fn func(pgx.Tx) error) error {
	if tx != nil {
		return fn(tx)
	}
	own, err := o.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("outbox: begin: %w", err)
	}
	defer func() { _ = own.Rollback(context.WithoutCancel(ctx)) }()
	if err := fn(own); err != nil {
		return err
	}
	if err := own.Commit(ctx); err != nil {
		return fmt.Errorf("outbox: commit: %w", err)
	}
	return nil
}

// validate checks what a message must have before it is stored, and keeps
// line breaks out of header values.
func validate(m *Message) error {
	addr, err := mail.ParseAddress(strings.TrimSpace(m.To))
	if err != nil {
		return apperr.New(apperr.KindInvalid, "The recipient's e-mail address is not valid.")
	}
	m.To = addr.Address
	if m.ToName == "" {
		m.ToName = addr.Name
	}
	if m.ReplyTo != "" {
		r, err := mail.ParseAddress(strings.TrimSpace(m.ReplyTo))
		if err != nil {
			return apperr.New(apperr.KindInvalid, "The reply-to e-mail address is not valid.")
		}
		m.ReplyTo = r.Address
	}
	// A line break in a header value would end the header and start another (header
	// injection): names and subjects are refused unless they are one line of text.
	if !validation.IsText(m.ToName) || !validation.IsText(m.Subject) {
		return apperr.New(apperr.KindInvalid, "An e-mail's recipient name and subject must be one line of text, without line breaks or control characters.")
	}
	m.ToName = oneLine(m.ToName)
	m.Subject = oneLine(m.Subject)
	if m.Kind == "" || m.Subject == "" || strings.TrimSpace(m.Text) == "" {
		return apperr.New(apperr.KindInvalid, "An e-mail needs a kind, a subject and a plain-text part.")
	}
	return nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// deliverInsertOpts bounds the delivery attempts of one message and puts them
// on the e-mails' own queue, where they never wait behind pushes.
func deliverInsertOpts() *river.InsertOpts {
	return &river.InsertOpts{Queue: jobs.QueueMail, MaxAttempts: DeliveryAttempts}
}
