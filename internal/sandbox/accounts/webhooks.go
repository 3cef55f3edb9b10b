package accounts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// webhookEvent is one state change to announce.
type webhookEvent struct {
	ID      string
	Status  Status
	Created int64 // epoch milliseconds, by the sandbox clock
}

// webhookBody is the published webhook JSON.
type webhookBody struct {
	ID      string `json:"id"`
	Status  Status `json:"status"`
	Created int64  `json:"created"`
	Token   string `json:"token"`
}

// webhooks delivers status webhooks, each in its own goroutine, so one
// failing delivery does not hold back the others; as the upstream warns,
// deliveries can therefore arrive out of order, and a retried one can
// arrive twice when an answer is lost.
type webhooks struct {
	url, token string
	delays     []time.Duration
	client     *http.Client
	log        *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex // orders send's wg.Add before close's wg.Wait
	closed bool
}

func newWebhooks(opts Options, log *slog.Logger) *webhooks {
	ctx, cancel := context.WithCancel(context.Background())
	return &webhooks{
		url: opts.WebhookURL, token: opts.WebhookToken, delays: opts.WebhookRetryDelays,
		client: opts.WebhookClient, log: log, ctx: ctx, cancel: cancel,
	}
}

// send queues the delivery of ev; it never blocks.
func (h *webhooks) send(ev webhookEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.url == "" || h.closed {
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.deliver(ev)
	}()
}

// deliver posts ev until a 2xx answer, waiting the retry delays between
// attempts, and gives up after the last one.
func (h *webhooks) deliver(ev webhookEvent) {
	body, _ := json.Marshal(webhookBody{ID: ev.ID, Status: ev.Status, Created: ev.Created, Token: h.token})
	for attempt := 1; ; attempt++ {
		err := h.post(body)
		if err == nil {
			h.log.Info("sandbox webhook delivered", "application_id", ev.ID, "status", ev.Status, "attempt", attempt)
			return
		}
		if attempt > len(h.delays) {
			h.log.Warn("sandbox webhook abandoned", "application_id", ev.ID, "status", ev.Status, "attempts", attempt, "err", err)
			return
		}
		h.log.Info("sandbox webhook failed, will retry", "application_id", ev.ID, "status", ev.Status, "attempt", attempt, "err", err)
		t := time.NewTimer(h.delays[attempt-1])
		select {
		case <-t.C:
		case <-h.ctx.Done():
			t.Stop()
			return
		}
	}
}

// post makes one delivery attempt.
func (h *webhooks) post(body []byte) error {
	req, err := http.NewRequestWithContext(h.ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
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

// close stops the deliveries in flight and waits for them.
func (h *webhooks) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}
