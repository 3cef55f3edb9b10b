package accounts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// delivery is one status webhook waiting to be delivered. It is stored in
// the same transaction as the state change it announces (an outbox), so no
// change goes unannounced, even across a restart.
type delivery struct {
	ID       string    `json:"id"`
	AppID    string    `json:"applicationId"`
	Status   Status    `json:"status"`
	Created  int64     `json:"created"` // epoch milliseconds, by the sandbox clock
	Attempts int       `json:"attempts"`
	Due      time.Time `json:"due"`
}

// webhookBody is the published webhook JSON.
type webhookBody struct {
	ID      string `json:"id"`
	Status  Status `json:"status"`
	Created int64  `json:"created"`
	Token   string `json:"token"`
}

// webhooks sends the deliveries, each attempt in its own goroutine, so one
// failing receiver does not hold back the others; as the upstream warns,
// deliveries can therefore arrive out of order, and a retried one can
// arrive twice when an answer is lost. Failed attempts are retried after
// the retry delays, by the sandbox clock, then abandoned.
type webhooks struct {
	s      *Server
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex // orders attempt's wg.Add before close's wg.Wait
	closed bool
}

func newWebhooks(s *Server) *webhooks {
	ctx, cancel := context.WithCancel(context.Background())
	return &webhooks{s: s, ctx: ctx, cancel: cancel}
}

// enqueue stores the delivery of a state change, due at once.
func (h *webhooks) enqueue(c *change, appID string, st Status) error {
	if h.s.opts.WebhookURL == "" {
		return nil
	}
	b := c.tx.Bucket([]byte(bHooks))
	n, err := b.NextSequence()
	if err != nil {
		return err
	}
	d := delivery{ID: fmt.Sprintf("%016x", n), AppID: appID, Status: st, Created: c.now.UnixMilli(), Due: c.now}
	if err := kit.Put(c.tx, bHooks, d.ID, d); err != nil {
		return err
	}
	return putDue(c, d.Due, dueWebhook, d.ID)
}

// attempt starts one delivery attempt of the delivery due at item.
func (h *webhooks) attempt(item dueItem) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	var d delivery
	err := h.s.update(func(c *change) error {
		if err := deleteDue(c.tx, item.at, dueWebhook, item.id); err != nil {
			return err
		}
		if err := kit.Get(c.tx, bHooks, item.id, &d); err != nil {
			d.ID = "" // delivered or abandoned meanwhile
			return nil
		}
		d.Attempts++
		return kit.Put(c.tx, bHooks, d.ID, d)
	})
	if err != nil || d.ID == "" {
		if err != nil {
			h.s.log.Error("sandbox webhook not attempted", "err", err)
		}
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.finish(d, h.post(d))
	}()
}

// finish records the outcome of an attempt: delivered, retried later or
// abandoned after the last retry.
func (h *webhooks) finish(d delivery, sendErr error) {
	log := h.s.log.With("application_id", d.AppID, "status", d.Status, "attempt", d.Attempts)
	delays := h.s.opts.WebhookRetryDelays
	err := h.s.update(func(c *change) error {
		if sendErr == nil || d.Attempts > len(delays) {
			return kit.Delete(c.tx, bHooks, d.ID)
		}
		d.Due = c.now.Add(delays[d.Attempts-1])
		if err := kit.Put(c.tx, bHooks, d.ID, d); err != nil {
			return err
		}
		return putDue(c, d.Due, dueWebhook, d.ID)
	})
	switch {
	case err != nil:
		log.Error("sandbox webhook outcome not stored", "err", err)
	case sendErr == nil:
		log.Info("sandbox webhook delivered")
	case d.Attempts > len(delays):
		log.Warn("sandbox webhook abandoned", "err", sendErr)
	default:
		log.Info("sandbox webhook failed, will retry", "err", sendErr, "retry_at", d.Due)
	}
}

// post makes one delivery attempt.
func (h *webhooks) post(d delivery) error {
	body, _ := json.Marshal(webhookBody{ID: d.AppID, Status: d.Status, Created: d.Created, Token: h.s.opts.WebhookToken})
	req, err := http.NewRequestWithContext(h.ctx, http.MethodPost, h.s.opts.WebhookURL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.s.opts.WebhookClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("receiver answered %s", resp.Status)
	}
	return nil
}

// close stops the attempts in flight and waits for them; their deliveries
// stay stored and are attempted again after a restart.
func (h *webhooks) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}

// WebhookDelivery is a delivery waiting for its first attempt or a retry.
type WebhookDelivery struct {
	ApplicationID string    `json:"applicationId"`
	Status        Status    `json:"status"`
	Attempts      int       `json:"attempts"`
	Due           time.Time `json:"due"`
}

// PendingWebhooks lists the deliveries not yet delivered nor abandoned,
// oldest first.
func (s *Server) PendingWebhooks() []WebhookDelivery {
	out := []WebhookDelivery{}
	_ = s.view(func(tx *bolt.Tx) error {
		return kit.Each(tx, bHooks, func(_ string, raw []byte) error {
			var d delivery
			if decodeJSON(raw, &d) == nil {
				out = append(out, WebhookDelivery{ApplicationID: d.AppID, Status: d.Status, Attempts: d.Attempts, Due: d.Due})
			}
			return nil
		})
	})
	return out
}
