package webhooks_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/webhooks"
)

// boarded emits application.boarded of a new application of the rep and returns its id.
func (f *fixture) boarded(t *testing.T) uuid.UUID {
	t.Helper()
	app := f.application(t, f.rep)
	f.emitIn(t, true, webhooks.News{Type: webhooks.ApplicationBoarded, ApplicationID: app, Data: webhooks.Data{Object: webhooks.ObjectApplication, ID: app}})
	return app
}

// delivery reads the one delivery of an endpoint.
func (f *fixture) delivery(t *testing.T, endpoint uuid.UUID) *webhooks.Delivery {
	t.Helper()
	page, err := f.svc.Deliveries(context.Background(), endpoint, "", 1)
	if err != nil || len(page.Deliveries) == 0 {
		t.Fatalf("deliveries of %s: %v, %v", endpoint, page, err)
	}
	return &page.Deliveries[0]
}

// verify checks a request with the Standard Webhooks reference library and secret.
func verify(secret string, r received) error {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return err
	}
	return wh.Verify(r.Body, r.Header)
}

// A receiver failing twice gets the event a third time and takes it: every attempt is
// signed (checked by the reference library) with the same webhook-id, and the log keeps
// each attempt's code and time, never the receiver's answer.
func TestDeliveryIsRetriedAndLogged(t *testing.T) {
	f := setup(t, options{workers: true, allowPrivate: true})
	rcv := newReceiver(t, false, http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusNoContent)
	ep, secret := f.endpoint(t, rcv.URL+"/hooks", f.repKey, webhooks.ApplicationBoarded)
	f.boarded(t)
	testutil.Eventually(t, 20*time.Second, "the delivery", func() (bool, string) {
		d := f.delivery(t, ep.ID)
		return d.Status == webhooks.StatusDelivered, d.Status
	})
	got := rcv.requests()
	if len(got) != 3 {
		t.Fatalf("%d requests, want 3", len(got))
	}
	for i, r := range got {
		if err := verify(secret, r); err != nil {
			t.Errorf("attempt %d: the reference library refuses it: %v", i+1, err)
		}
		if r.Header.Get("webhook-id") != got[0].Header.Get("webhook-id") || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("attempt %d headers %v", i+1, r.Header)
		}
	}
	d := f.delivery(t, ep.ID)
	_, _, attempts, err := f.svc.Delivery(context.Background(), ep.ID, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	var codes []int
	for _, a := range attempts {
		codes = append(codes, *a.Code)
	}
	if !slices.Equal(codes, []int{204, 503, 500}) || d.Attempts != 3 || *d.LastCode != 204 || d.LastTook == nil || d.DeliveredAt == nil {
		t.Fatalf("log: %+v, attempts' codes %v", d, codes)
	}
	if d.EventID.String() != got[0].Header.Get("webhook-id") {
		t.Errorf("webhook-id %s is not the event id %s", got[0].Header.Get("webhook-id"), d.EventID)
	}
	if n := f.count(t, `SELECT count(*) FROM webhook_endpoints WHERE failing_since IS NOT NULL`); n != 0 {
		t.Error("a success leaves the endpoint failing")
	}
	if n := f.count(t, `SELECT (SELECT count(*) FROM webhook_attempts WHERE error LIKE '%receiver-private%')
		+ (SELECT count(*) FROM river_job WHERE errors::text LIKE '%receiver-private%')`); n != 0 {
		t.Error("the receiver's answer was kept")
	}
}

// After a rotation both secrets sign for a day (the reference library accepts either),
// then only the new one; "send again" repeats a delivery with the same webhook-id.
func TestRotationAndSendAgain(t *testing.T) {
	f := setup(t, options{workers: true, allowPrivate: true})
	ctx := context.Background()
	rcv := newReceiver(t, false)
	ep, old := f.endpoint(t, rcv.URL, f.resellerKey, webhooks.ApplicationBoarded)
	fresh, err := f.svc.Rotate(ctx, f.admin, ep.ID)
	if err != nil || fresh == old || !strings.HasPrefix(fresh, "whsec_") {
		t.Fatalf("rotate: %q, %v", fresh, err)
	}
	f.boarded(t)
	testutil.Eventually(t, 20*time.Second, "the first delivery", func() (bool, string) {
		return f.delivery(t, ep.ID).Status == webhooks.StatusDelivered, ""
	})
	first := rcv.requests()[0]
	if verify(old, first) != nil || verify(fresh, first) != nil || len(strings.Fields(first.Header.Get("webhook-signature"))) != 2 {
		t.Fatalf("during the overlap both secrets must verify: %q", first.Header.Get("webhook-signature"))
	}

	d := f.delivery(t, ep.ID)
	if err := f.svc.Resend(ctx, f.admin, ep.ID, d.ID); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, "the delivery again", func() (bool, string) { return len(rcv.requests()) == 2, "" })
	if again := rcv.requests()[1]; again.Header.Get("webhook-id") != first.Header.Get("webhook-id") || string(again.Body) != string(first.Body) {
		t.Fatalf("sent again with another id or body")
	}
	// The receiver answers before the worker records its answer: wait for the record.
	testutil.Eventually(t, 20*time.Second, "the second attempt recorded", func() (bool, string) {
		d := f.delivery(t, ep.ID)
		return d.Attempts == 2 && d.Status == webhooks.StatusDelivered, fmt.Sprintf("%+v", d)
	})

	f.clock.Advance(webhooks.RotationOverlap + time.Minute)
	f.boarded(t)
	testutil.Eventually(t, 20*time.Second, "the delivery after the overlap", func() (bool, string) { return len(rcv.requests()) == 3, "" })
	late := rcv.requests()[2]
	if wh, _ := standardwebhooks.NewWebhook(fresh); wh.VerifyIgnoringTimestamp(late.Body, late.Header) != nil {
		t.Error("the new secret does not verify after the overlap")
	}
	if wh, _ := standardwebhooks.NewWebhook(old); wh.VerifyIgnoringTimestamp(late.Body, late.Header) == nil {
		t.Error("the old secret still signs after the overlap")
	}
}

// An endpoint whose attempts have failed for three days is disabled, the admins are
// e-mailed and its page says why; enabled again, its failed delivery can be sent again.
func TestEndpointFailingForThreeDaysIsDisabled(t *testing.T) {
	f := setup(t, options{workers: true, allowPrivate: true, retryDelay: time.Hour})
	ctx := context.Background()
	rcv := newReceiver(t, false, http.StatusBadGateway, http.StatusBadGateway, http.StatusOK)
	ep, _ := f.endpoint(t, rcv.URL, f.repKey, webhooks.ApplicationBoarded, webhooks.ApplicationDeclined)
	start := f.clock.Now()
	f.boarded(t)
	testutil.Eventually(t, 20*time.Second, "the first attempt", func() (bool, string) { return f.delivery(t, ep.ID).Attempts == 1, "" })
	got, _ := f.svc.Get(ctx, ep.ID)
	if d := f.delivery(t, ep.ID); got.FailingSince == nil || !got.FailingSince.Equal(start) || d.Status != webhooks.StatusPending ||
		d.NextAttempt == nil || !d.NextAttempt.Equal(start.Add(time.Hour)) {
		t.Fatalf("after one failure: endpoint failing since %v, delivery %+v", got.FailingSince, d)
	}

	// Three days later the retry fails again: the endpoint is disabled.
	f.clock.Advance(webhooks.RetryWindow)
	var job int64
	testutil.Eventually(t, 20*time.Second, "the retry scheduled", func() (bool, string) {
		var state string
		err := f.db.Pool.QueryRow(ctx, `SELECT id, state FROM river_job WHERE kind = 'webhook_deliver'`).Scan(&job, &state)
		return err == nil && state == "retryable", state
	})
	if _, err := f.queue.Client().JobRetry(ctx, job); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, "the endpoint disabled", func() (bool, string) {
		e, err := f.svc.Get(ctx, ep.ID)
		return err == nil && e.AutoDisabled(), ""
	})
	d := f.delivery(t, ep.ID)
	if d.Status != webhooks.StatusFailed || d.Attempts != 2 || !strings.Contains(d.LastError, "disabled") {
		t.Errorf("the delivery after disabling: %+v", d)
	}
	if n := f.count(t, `SELECT count(*) FROM mail_outbox WHERE kind = 'webhook_disabled' AND to_address = $1`, f.admin.Email); n != 1 {
		t.Errorf("%d e-mails to the admin", n)
	}
	if n := f.count(t, `SELECT count(*) FROM audit_events WHERE subject_id = $1 AND action = 'webhook_endpoint_disabled' AND actor_id IS NULL`, f.repKey.ID); n != 1 {
		t.Errorf("%d audit entries of the portal disabling it", n)
	}
	app := f.application(t, f.rep)
	f.emitIn(t, true, webhooks.News{Type: webhooks.ApplicationDeclined, ApplicationID: app, Data: webhooks.Data{Object: webhooks.ObjectApplication, ID: app}})
	if n := f.count(t, `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1`, ep.ID); n != 1 {
		t.Errorf("a disabled endpoint got a new delivery (%d)", n)
	}

	if err := f.svc.Resend(ctx, f.admin, ep.ID, d.ID); err == nil {
		t.Error("a disabled endpoint's delivery was sent again")
	}
	if err := f.svc.SetDisabled(ctx, f.admin, ep.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Resend(ctx, f.admin, ep.ID, d.ID); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, "the delivery sent again", func() (bool, string) {
		d := f.delivery(t, ep.ID)
		return d.Status == webhooks.StatusDelivered, d.Status
	})
}

// A delivery waiting for its attempt stops when its key is revoked: nothing is sent.
func TestDeliveryStopsWhenTheKeyIsRevoked(t *testing.T) {
	f := setup(t, options{allowPrivate: true})
	rcv := newReceiver(t, false)
	ep, _ := f.endpoint(t, rcv.URL, f.repKey, webhooks.ApplicationBoarded)
	f.boarded(t)
	if _, err := f.keys.Revoke(context.Background(), f.admin, f.repKey.ID); err != nil {
		t.Fatal(err)
	}
	f.start(t)
	testutil.Eventually(t, 20*time.Second, "the delivery stopped", func() (bool, string) {
		d := f.delivery(t, ep.ID)
		return d.Status == webhooks.StatusFailed, d.Status
	})
	if d := f.delivery(t, ep.ID); len(rcv.requests()) != 0 || d.Attempts != 0 || !strings.Contains(d.LastError, "revoked") {
		t.Fatalf("%d requests, delivery %+v", len(rcv.requests()), d)
	}
}

// Disabling an endpoint stops its pending deliveries at once, not at their next attempt.
func TestDisablingStopsPendingDeliveries(t *testing.T) {
	f := setup(t, options{allowPrivate: true})
	ep, _ := f.endpoint(t, "http://127.0.0.1:9/hooks", f.repKey, webhooks.ApplicationBoarded)
	f.boarded(t)
	if err := f.svc.SetDisabled(context.Background(), f.admin, ep.ID, true); err != nil {
		t.Fatal(err)
	}
	if d := f.delivery(t, ep.ID); d.Status != webhooks.StatusFailed || d.Attempts != 0 || !strings.Contains(d.LastError, "disabled") {
		t.Fatalf("a pending delivery of a disabled endpoint: %+v", d)
	}
}
