package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/terminals"
	"github.com/payportal/portal/internal/webhooks"
)

// webhookParts are what the partner webhooks are built from.
type webhookParts struct {
	Config   *config.Config
	Pool     *pgxpool.Pool
	Ring     *fieldcrypt.KeyRing
	Queue    *jobs.Queue
	Outbox   *mail.Outbox
	Registry prometheus.Registerer
	// RetryDelay replaces the delivery schedule (tests); nil keeps it.
	RetryDelay func(attempt int) time.Duration
	Now        func() time.Time
	Log        *slog.Logger
}

// wireWebhooks builds the webhooks room, registers its delivery worker, and returns its
// service and the announcer every room's news goes through.
func wireWebhooks(p webhookParts) (*webhooks.Service, announcer) {
	c := p.Config.Webhooks
	if c.AllowPrivate {
		p.Log.Warn("webhooks may reach private and loopback addresses (PORTAL_WEBHOOKS_ALLOW_PRIVATE=true): for tests and development only")
	}
	sender := webhooks.NewSender(webhooks.SenderOptions{AllowPrivate: c.AllowPrivate, Timeout: c.Timeout})
	svc, emitter := webhooks.Register(webhooks.Deps{
		Store: webhooks.NewStore(p.Pool), Keys: apikeys.NewStore(p.Pool), Ring: p.Ring, Queue: p.Queue, Outbox: p.Outbox,
		PublicURL: p.Config.PublicURL, ResellerName: p.Config.ResellerName, AllowPrivate: c.AllowPrivate,
		Metrics: webhooks.NewMetrics(p.Registry), Now: p.Now, Log: p.Log.With("component", "webhooks"),
	}, sender, p.RetryDelay)
	return svc, announcer{emit: emitter}
}

// announcer turns each room's news into webhook events, in the transaction of the
// change: it implements submission.Announcer, handoff.StatusAnnouncer,
// merchants.Announcer, payments.Announcer and terminals.Announcer.
type announcer struct{ emit *webhooks.Emitter }

func (a announcer) application(ctx context.Context, tx pgx.Tx, t webhooks.EventType, id uuid.UUID) error {
	return a.emit.Emit(ctx, tx, webhooks.News{Type: t, ApplicationID: id, Once: t == webhooks.ApplicationBoarded,
		Data: webhooks.Data{Object: webhooks.ObjectApplication, ID: id}})
}

// ApplicationSubmitted implements submission.Announcer.
func (a announcer) ApplicationSubmitted(ctx context.Context, tx pgx.Tx, id uuid.UUID) error {
	return a.application(ctx, tx, webhooks.ApplicationSubmitted, id)
}

// ApplicationLinked implements submission.Announcer.
func (a announcer) ApplicationLinked(ctx context.Context, tx pgx.Tx, id uuid.UUID) error {
	return a.application(ctx, tx, webhooks.ApplicationLinked, id)
}

// StatusShown implements handoff.StatusAnnouncer: the processor's states partners hear of.
func (a announcer) StatusShown(ctx context.Context, tx pgx.Tx, id uuid.UUID, status string) error {
	t := webhooks.ApplicationEventOf(status)
	if t == "" {
		return nil
	}
	return a.application(ctx, tx, t, id)
}

// MerchantChanged implements merchants.Announcer.
func (a announcer) MerchantChanged(ctx context.Context, tx pgx.Tx, change merchants.Change, m *merchants.Merchant) error {
	t := map[merchants.Change]webhooks.EventType{merchants.ChangeBoarded: webhooks.MerchantBoarded,
		merchants.ChangeSuspended: webhooks.MerchantSuspended, merchants.ChangeResumed: webhooks.MerchantResumed}[change]
	suspended := m.Suspended()
	d := webhooks.Data{Object: webhooks.ObjectMerchant, ID: m.ID, State: m.State().Outcome, Suspended: &suspended,
		ApplicationID: &m.ApplicationID}
	if m.UpstreamStatus != nil {
		d.ProcessorStatus = *m.UpstreamStatus
	}
	return a.emit.Emit(ctx, tx, webhooks.News{Type: t, MerchantID: m.ID, Data: d})
}

// Answered implements payments.Announcer.
func (a announcer) Answered(ctx context.Context, tx pgx.Tx, before payments.Status, t *payments.Transaction) error {
	for _, n := range paymentNews(before, t) {
		if err := a.emit.Emit(ctx, tx, n); err != nil {
			return err
		}
	}
	return nil
}

// currency is the ledger's one currency.
const currency = "USD"

// paymentNews is what partners hear of a ledger answer: the outcome of an unknown one
// resolved, then a payment approved or declined, a payment voided (the object is the
// voided payment) or a refund approved. Captures, tip adjustments and saved methods are
// not announced.
func paymentNews(before payments.Status, t *payments.Transaction) []webhooks.News {
	if t.Status.Open() {
		return nil
	}
	d := webhooks.Data{Object: webhooks.ObjectPayment, ID: t.ID, State: string(t.Status), MerchantID: &t.MerchantID,
		Kind: string(t.Kind), Source: string(t.Source), Amount: webhooks.Money(t.AmountCents),
		ApprovedAmount: webhooks.Money(t.ApprovedCents), Currency: currency, OriginalID: t.ParentID}
	var out []webhooks.News
	add := func(typ webhooks.EventType, d webhooks.Data) {
		out = append(out, webhooks.News{Type: typ, MerchantID: t.MerchantID, Data: d})
	}
	if before == payments.StatusChecking {
		add(webhooks.PaymentOutcomeResolved, d)
	}
	switch {
	case t.Kind == payments.KindVoid && t.Status.Succeeded() && t.ParentID != nil:
		voided := d
		voided.ID, voided.State, voided.Kind, voided.OriginalID = *t.ParentID, string(payments.StatusVoided), "", nil
		add(webhooks.PaymentVoided, voided)
	case t.Kind == payments.KindRefund && t.Status.Succeeded():
		add(webhooks.PaymentRefunded, d)
	case t.Kind.IsOperation() || t.Kind == payments.KindSaveMethod:
	case t.Status.Succeeded():
		add(webhooks.PaymentApproved, d)
	case t.Status == payments.StatusDeclined || t.Status == payments.StatusFailed:
		add(webhooks.PaymentDeclined, d)
	}
	return out
}

// LaunchFinished implements terminals.Announcer.
func (a announcer) LaunchFinished(ctx context.Context, tx pgx.Tx, l *terminals.Launch) error {
	d := webhooks.Data{Object: webhooks.ObjectTerminalTransaction, ID: l.ID, State: string(l.State), MerchantID: &l.MerchantID,
		Kind: string(l.Kind), TransactionID: l.LedgerID, Currency: currency}
	if l.AmountCents != nil {
		d.Amount = webhooks.Money(*l.AmountCents)
	}
	if l.ProcessedCents != nil {
		d.ApprovedAmount = webhooks.Money(*l.ProcessedCents)
	}
	return a.emit.Emit(ctx, tx, webhooks.News{Type: webhooks.TerminalTransactionFinished, MerchantID: l.MerchantID, Data: d})
}
