package mail_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/testutil/smtpserver"
	"github.com/payportal/portal/internal/testutil/testdb"
)

const (
	smtpUser     = "portal"
	smtpPassword = "s3cret-smtp-pass"
	merchantAddr = "dana@merchant.test"
)

// harness is an outbox with running workers, delivering to an in-process SMTP
// server (or holding messages when smtp is nil).
type harness struct {
	db     *database.DB
	queue  *jobs.Queue
	outbox *mail.Outbox
	smtp   *smtpserver.Server
	events <-chan *river.Event
}

func newHarness(t *testing.T, withSMTP bool) *harness {
	t.Helper()
	h := &harness{db: testdb.New(t)}
	log := slog.New(slog.DiscardHandler)
	q, err := jobs.New(h.db.Pool, jobs.Config{
		RunWorkers: true, Concurrency: 2, ShutdownTimeout: time.Second,
		PollInterval: 50 * time.Millisecond,
		RetryDelay:   func(int) time.Duration { return 10 * time.Millisecond },
	}, log)
	if err != nil {
		t.Fatal(err)
	}
	var cfg config.SMTPConfig
	if withSMTP {
		h.smtp = smtpserver.Start(t, smtpserver.WithAuth(smtpUser, smtpPassword))
		cfg = config.SMTPConfig{Host: h.smtp.Host, Port: h.smtp.Port, Username: smtpUser, Password: smtpPassword,
			From: "onboarding@reseller.test", TLSPolicy: "none"}
	}
	sender, err := mail.NewSender(cfg, "Test Payments")
	if err != nil {
		t.Fatal(err)
	}
	ring, err := fieldcrypt.NewKeyRing("k", map[string][]byte{"k": bytes.Repeat([]byte{7}, fieldcrypt.KeySize)})
	if err != nil {
		t.Fatal(err)
	}
	outbox := mail.NewOutbox(mail.Deps{Pool: h.db.Pool, Queue: q, Sender: sender, SMTP: cfg, KeyRing: ring, Now: time.Now, Log: log})
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.StopAndCancel(context.Background()) })
	events, cancel, err := q.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled, river.EventKindJobFailed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	h.queue, h.outbox, h.events = q, outbox, events
	return h
}

// waitDone waits until the delivery job of message id reaches a final state.
func (h *harness) waitDone(t *testing.T, id uuid.UUID) rivertype.JobState {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-h.events:
			var args mail.DeliverArgs
			if ev.Job.Kind != args.Kind() || json.Unmarshal(ev.Job.EncodedArgs, &args) != nil || args.MessageID != id {
				continue
			}
			switch ev.Job.State {
			case rivertype.JobStateCompleted, rivertype.JobStateCancelled, rivertype.JobStateDiscarded:
				return ev.Job.State
			}
		case <-timeout:
			t.Fatal("timed out waiting for the delivery job")
		}
	}
}

func (h *harness) enqueueHandoff(t *testing.T) *mail.Message {
	t.Helper()
	content, err := mail.HandoffEmail(mail.HandoffData{
		ResellerName: "Test Payments", MerchantName: "Dana's Donuts", ContactName: "Dana Smith",
		RepName: "Riley Rep", RepEmail: "riley@reseller.test", Link: secret(t, "https://portal.test/l/abc"),
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := h.outbox.Enqueue(context.Background(), nil, mail.Message{
		Kind: mail.KindHandoff, To: merchantAddr, ToName: "Dana Smith", ReplyTo: "riley@reseller.test", Content: content,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (h *harness) reload(t *testing.T, id uuid.UUID) *mail.Message {
	t.Helper()
	m, err := h.outbox.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestHandoffMessageIsDeliveredOverSMTP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, true)
	m := h.enqueueHandoff(t)
	got := h.smtp.WaitFor(t, 20*time.Second)
	if err := h.smtp.ParseError(); err != nil {
		t.Fatal(err)
	}
	if got.From != "onboarding@reseller.test" || len(got.To) != 1 || got.To[0] != merchantAddr {
		t.Errorf("envelope: from %q to %v", got.From, got.To)
	}
	if got.Subject != "Test Payments: your merchant application for Dana's Donuts is ready" {
		t.Errorf("subject %q", got.Subject)
	}
	for _, part := range []string{got.Text, got.HTML} {
		for _, want := range []string{"Test Payments", "Dana Smith", "Riley Rep", "https://portal.test/l/abc"} {
			if !strings.Contains(part, want) {
				t.Errorf("a part lacks %q:\n%s", want, part)
			}
		}
	}
	if !strings.Contains(got.HTML, `href="https://portal.test/l/abc"`) || !strings.Contains(got.HTML, "Dana&#39;s Donuts") {
		t.Errorf("HTML part:\n%s", got.HTML)
	}
	if from := strings.Join(got.Header["From"], ""); !strings.Contains(from, "Test Payments") {
		t.Errorf("From header %q lacks the reseller's name", from)
	}
	if reply := strings.Join(got.Header["Reply-To"], ""); !strings.Contains(reply, "riley@reseller.test") {
		t.Errorf("Reply-To %q", reply)
	}
	if got.MessageID != "<"+m.ID.String()+"@reseller.test>" {
		t.Errorf("Message-ID %q", got.MessageID)
	}
	if st := h.waitDone(t, m.ID); st != rivertype.JobStateCompleted {
		t.Fatalf("job %s", st)
	}
	stored := h.reload(t, m.ID)
	if stored.Status != mail.StatusSent || stored.Attempts != 1 || stored.SentAt == nil || stored.LastError != "" {
		t.Fatalf("stored: %+v", stored)
	}
}

func TestTemporaryFailureIsRetried(t *testing.T) {
	t.Parallel()
	h := newHarness(t, true)
	h.smtp.FailNext(2)
	m := h.enqueueHandoff(t)
	h.smtp.WaitFor(t, 20*time.Second)
	if st := h.waitDone(t, m.ID); st != rivertype.JobStateCompleted {
		t.Fatalf("job %s", st)
	}
	if n := h.smtp.Attempts(); n != 3 {
		t.Errorf("%d delivery attempts, want 3", n)
	}
	stored := h.reload(t, m.ID)
	if stored.Status != mail.StatusSent || stored.Attempts != 3 {
		t.Fatalf("stored: status %s attempts %d", stored.Status, stored.Attempts)
	}
	// The error of the failed attempts stays for the record.
	if !strings.Contains(stored.LastError, "451") {
		t.Errorf("last error %q", stored.LastError)
	}
}

func TestPermanentFailureStopsAtOnceWithoutLeakingTheAddress(t *testing.T) {
	t.Parallel()
	h := newHarness(t, true)
	h.smtp.FailNextWith(1, 550)
	m := h.enqueueHandoff(t)
	if st := h.waitDone(t, m.ID); st != rivertype.JobStateCancelled {
		t.Fatalf("job %s, want cancelled", st)
	}
	stored := h.reload(t, m.ID)
	if stored.Status != mail.StatusFailed || stored.Attempts != 1 {
		t.Fatalf("stored: status %s attempts %d", stored.Status, stored.Attempts)
	}
	if !strings.Contains(stored.LastError, "550") {
		t.Errorf("last error %q lacks the server's code", stored.LastError)
	}
	for _, secret := range []string{merchantAddr, smtpPassword} {
		if strings.Contains(stored.LastError, secret) {
			t.Errorf("last error %q reveals %q", stored.LastError, secret)
		}
	}
}

func TestEveryAttemptFailingMarksTheMessageFailed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, true)
	h.smtp.FailNext(mail.DeliveryAttempts)
	m := h.enqueueHandoff(t)
	if st := h.waitDone(t, m.ID); st != rivertype.JobStateDiscarded {
		t.Fatalf("job %s, want discarded", st)
	}
	stored := h.reload(t, m.ID)
	if stored.Status != mail.StatusFailed || stored.Attempts != mail.DeliveryAttempts || stored.NextAttemptAt != nil {
		t.Fatalf("stored: %+v", stored)
	}
}

func TestWithoutSMTPMessagesAreHeld(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	m := h.enqueueHandoff(t)
	if st := h.waitDone(t, m.ID); st != rivertype.JobStateCompleted {
		t.Fatalf("job %s", st)
	}
	stored := h.reload(t, m.ID)
	if stored.Status != mail.StatusHeld || stored.SentAt != nil {
		t.Fatalf("stored: %+v", stored)
	}
	if stored.Text == "" || stored.HTML == "" {
		t.Fatal("a held message must keep its content")
	}
}

func TestResendQueuesAFreshCopy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, true)
	orig := h.enqueueHandoff(t)
	h.smtp.WaitFor(t, 20*time.Second)
	h.waitDone(t, orig.ID)
	cp, err := h.outbox.Resend(context.Background(), nil, orig.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	again := h.smtp.WaitFor(t, 20*time.Second)
	h.waitDone(t, cp.ID)
	if cp.ID == orig.ID || cp.ResentFrom == nil || *cp.ResentFrom != orig.ID {
		t.Fatalf("copy: %+v", cp)
	}
	if again.Subject != orig.Subject || !strings.Contains(again.Text, "https://portal.test/l/abc") {
		t.Errorf("resent message differs: %q", again.Subject)
	}
	if h.reload(t, orig.ID).Status != mail.StatusSent || h.reload(t, cp.ID).Status != mail.StatusSent {
		t.Error("both copies should be sent")
	}
}

func TestEnqueueJoinsTheCallersTransaction(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	ctx := context.Background()
	tx, err := h.db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.outbox.Enqueue(ctx, tx, mail.Message{Kind: mail.KindHandoff, To: merchantAddr,
		Content: mail.Content{Subject: "Hello", Text: "Hi"}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var messages, queued int
	if err := h.db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM mail_outbox), (SELECT count(*) FROM river_job WHERE kind = 'mail_deliver')`).Scan(&messages, &queued); err != nil {
		t.Fatal(err)
	}
	if messages != 0 || queued != 0 {
		t.Fatalf("after rollback: %d messages, %d jobs", messages, queued)
	}
}

func TestEnqueueRejectsBadMessages(t *testing.T) {
	t.Parallel()
	h := newHarness(t, false)
	tests := []struct {
		name string
		m    mail.Message
	}{
		{"bad address", mail.Message{Kind: mail.KindHandoff, To: "not an address", Content: mail.Content{Subject: "s", Text: "t"}}},
		{"no subject", mail.Message{Kind: mail.KindHandoff, To: merchantAddr, Content: mail.Content{Text: "t"}}},
		{"no text", mail.Message{Kind: mail.KindHandoff, To: merchantAddr, Content: mail.Content{Subject: "s"}}},
		{"bad reply-to", mail.Message{Kind: mail.KindHandoff, To: merchantAddr, ReplyTo: "nope", Content: mail.Content{Subject: "s", Text: "t"}}},
		{"CR/LF in the name", mail.Message{Kind: mail.KindHandoff, To: merchantAddr, ToName: "Jane\r\nBcc: all@example.com", Content: mail.Content{Subject: "s", Text: "t"}}},
		{"LF in the subject", mail.Message{Kind: mail.KindHandoff, To: merchantAddr, Content: mail.Content{Subject: "Hello\nBcc: all@example.com", Text: "t"}}},
		{"NUL in the subject", mail.Message{Kind: mail.KindHandoff, To: merchantAddr, Content: mail.Content{Subject: "Hello\x00", Text: "t"}}},
		{"raw invitation link", mail.Message{Kind: mail.KindInvitation, To: merchantAddr, Content: mail.Content{Subject: "s",
			Text: "Choose your password: https://portal.test/invite/abcdefghijklmnopqrstuvwxyz0123"}}},
		{"raw tracked link in the HTML", mail.Message{Kind: mail.KindHandoff, To: merchantAddr, Content: mail.Content{Subject: "s",
			Text: "t", HTML: `<a href="http://portal.test/l/abcdefghijklmnopqrstuvwxyz0123">open</a>`}}},
	}
	for _, tt := range tests {
		if _, err := h.outbox.Enqueue(context.Background(), nil, tt.m); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
}

func TestListPagesNewestFirst(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	q, err := jobs.New(db.Pool, jobs.Config{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(time.Minute); return clock }
	outbox := mail.NewOutbox(mail.Deps{Pool: db.Pool, Queue: q, Now: now, Log: slog.New(slog.DiscardHandler)})
	var ids []uuid.UUID
	for i := range 3 {
		m, err := outbox.Enqueue(context.Background(), nil, mail.Message{Kind: mail.KindHandoff, To: merchantAddr,
			Content: mail.Content{Subject: fmt.Sprintf("Message %d", i), Text: "t"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	first, err := outbox.List(context.Background(), mail.ListParams{PerPage: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Messages) != 2 || !first.HasMore || first.Messages[0].ID != ids[2] || first.Messages[1].ID != ids[1] {
		t.Fatalf("first page: %+v", first)
	}
	second, err := outbox.List(context.Background(), mail.ListParams{PerPage: 2, Page: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Messages) != 1 || second.HasMore || second.Messages[0].ID != ids[0] {
		t.Fatalf("second page: %+v", second)
	}
	held, err := outbox.List(context.Background(), mail.ListParams{Status: mail.StatusHeld})
	if err != nil {
		t.Fatal(err)
	}
	if len(held.Messages) != 0 {
		t.Fatalf("nothing is held yet: %+v", held)
	}
}
