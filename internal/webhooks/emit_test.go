package webhooks_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/webhooks"
)

// An event is written with the change or not at all: emitted in a transaction that rolls
// back, nothing is left (no event, no delivery, no job); committed, one delivery and one
// job per listening endpoint.
func TestEmitIsPartOfTheChangesTransaction(t *testing.T) {
	f := setup(t, options{allowPrivate: true})
	f.endpoint(t, "http://127.0.0.1:9/a", f.resellerKey, webhooks.ApplicationBoarded)
	f.endpoint(t, "http://127.0.0.1:9/b", f.resellerKey, webhooks.ApplicationBoarded, webhooks.ApplicationDeclined)
	app := f.application(t, f.rep)
	news := webhooks.News{Type: webhooks.ApplicationBoarded, ApplicationID: app, Data: webhooks.Data{Object: webhooks.ObjectApplication, ID: app}}

	f.emitIn(t, false, news)
	for _, table := range []string{"webhook_events", "webhook_deliveries", "webhook_object_versions"} {
		if n := f.count(t, `SELECT count(*) FROM `+table); n != 0 {
			t.Errorf("%s holds %d rows after a rollback", table, n)
		}
	}
	if n := f.count(t, `SELECT count(*) FROM river_job WHERE kind = 'webhook_deliver'`); n != 0 {
		t.Errorf("%d delivery jobs after a rollback", n)
	}

	f.emitIn(t, true, news)
	if n := f.count(t, `SELECT count(*) FROM webhook_deliveries`); n != 2 {
		t.Errorf("%d deliveries, want one per endpoint", n)
	}
	if n := f.count(t, `SELECT count(*) FROM river_job WHERE kind = 'webhook_deliver' AND queue = 'webhooks'`); n != 2 {
		t.Errorf("%d delivery jobs on the webhooks queue, want 2", n)
	}
}

// A rep-scoped key's endpoint hears only about its rep's objects; a reseller-wide one
// about everyone's; a revoked key's, a disabled one and one that did not choose the event
// hear nothing.
func TestEmitFollowsTheKeysScope(t *testing.T) {
	f := setup(t, options{allowPrivate: true})
	ctx := context.Background()
	repEP, _ := f.endpoint(t, "http://127.0.0.1:9/rep", f.repKey, webhooks.MerchantSuspended, webhooks.PaymentApproved)
	wideEP, _ := f.endpoint(t, "http://127.0.0.1:9/wide", f.resellerKey, webhooks.MerchantSuspended, webhooks.PaymentApproved)
	revokedKey := f.key(t, "Old", "reseller", "")
	f.endpoint(t, "http://127.0.0.1:9/revoked", revokedKey, webhooks.MerchantSuspended, webhooks.PaymentApproved)
	if _, err := f.keys.Revoke(ctx, f.admin, revokedKey.ID); err != nil {
		t.Fatal(err)
	}
	off, _ := f.endpoint(t, "http://127.0.0.1:9/off", f.resellerKey, webhooks.MerchantSuspended, webhooks.PaymentApproved)
	if err := f.svc.SetDisabled(ctx, f.admin, off.ID, true); err != nil {
		t.Fatal(err)
	}
	f.endpoint(t, "http://127.0.0.1:9/other", f.resellerKey, webhooks.ApplicationBoarded)

	mine, theirs := f.merchant(t, f.rep), f.merchant(t, f.otherRep)
	for _, m := range []uuid.UUID{mine, theirs} {
		f.emitIn(t, true, webhooks.News{Type: webhooks.MerchantSuspended, MerchantID: m, Data: webhooks.Data{Object: webhooks.ObjectMerchant, ID: m}})
		p := uuid.New()
		f.emitIn(t, true, webhooks.News{Type: webhooks.PaymentApproved, MerchantID: m, Data: webhooks.Data{Object: webhooks.ObjectPayment, ID: p, MerchantID: &m}})
	}
	got := map[uuid.UUID][]uuid.UUID{}
	rows, err := f.db.Pool.Query(ctx, `SELECT d.endpoint_id, ev.object_id FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
		WHERE ev.object_kind = 'merchant'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var ep, obj uuid.UUID
		_ = rows.Scan(&ep, &obj)
		got[ep] = append(got[ep], obj)
	}
	if len(got) != 2 || !slices.Equal(got[repEP.ID], []uuid.UUID{mine}) || len(got[wideEP.ID]) != 2 {
		t.Fatalf("merchant deliveries by endpoint: %v (rep %s, wide %s)", got, repEP.ID, wideEP.ID)
	}
	if n := f.count(t, `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1`, repEP.ID); n != 2 {
		t.Errorf("the rep's endpoint got %d deliveries, want its merchant's two", n)
	}
}

// Every event about an object has a version one higher than the last; application.boarded
// is sent once per application; a payload holds the object's id, version and state, and
// nothing else but ids, kinds and amounts.
func TestEmitVersionsAndPayload(t *testing.T) {
	f := setup(t, options{allowPrivate: true})
	f.endpoint(t, "http://127.0.0.1:9/all", f.resellerKey, webhooks.ApplicationBoarded, webhooks.ApplicationDeclined, webhooks.ApplicationSubmitted)
	app := f.application(t, f.rep)
	for _, typ := range []webhooks.EventType{webhooks.ApplicationSubmitted, webhooks.ApplicationBoarded, webhooks.ApplicationBoarded, webhooks.ApplicationDeclined} {
		f.emitIn(t, true, webhooks.News{Type: typ, ApplicationID: app, Once: typ == webhooks.ApplicationBoarded,
			Data: webhooks.Data{Object: webhooks.ObjectApplication, ID: app}})
	}
	rows, err := f.db.Pool.Query(context.Background(), `SELECT type, object_version, body FROM webhook_events ORDER BY object_version`)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for rows.Next() {
		var typ, body string
		var version int64
		if err := rows.Scan(&typ, &version, &body); err != nil {
			t.Fatal(err)
		}
		types = append(types, typ)
		var p struct {
			ID        uuid.UUID      `json:"id"`
			Type      string         `json:"type"`
			Timestamp string         `json:"timestamp"`
			Data      map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(body), &p); err != nil {
			t.Fatal(err)
		}
		if p.ID == uuid.Nil || p.Type != typ || p.Timestamp == "" || p.Data["id"] != app.String() || p.Data["object"] != "application" ||
			p.Data["version"] != float64(version) || int(version) != len(types) || p.Data["state"] != "boarded" || p.Data["processorStatus"] != "boarded" {
			t.Errorf("payload %s", body)
		}
		for k := range p.Data {
			if !slices.Contains([]string{"object", "id", "version", "state", "status", "processorStatus"}, k) {
				t.Errorf("application payload carries %q: %s", k, body)
			}
		}
	}
	if want := []string{"application.submitted", "application.boarded", "application.declined"}; !slices.Equal(types, want) {
		t.Fatalf("events %v, want %v (boarded once)", types, want)
	}
}
