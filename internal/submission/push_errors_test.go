package submission

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

func TestPushFailuresInPlainWords(t *testing.T) {
	for _, tt := range []struct {
		name      string
		step      string
		err       error
		permanent bool
		want      string
	}{
		{"a field refused", stepData,
			&upstream.Error{StatusCode: 400, Message: "banking.depositRouting: must be a valid routing number"}, true,
			"The processor rejected the application: banking.depositRouting: must be a valid routing number"},
		{"start refused", stepStart, &upstream.Error{StatusCode: 400, Message: "pricingCode: unknown"}, true,
			"The processor refused to start the application: pricingCode: unknown"},
		{"link refused without a message", stepLink, &upstream.Error{StatusCode: 404}, true,
			"The processor could not create the merchant's link (HTTP 404)."},
		{"credentials", stepStart, &upstream.Error{StatusCode: 401, Message: "bad token"}, true,
			"The processor refused the portal's credentials (HTTP 401)"},
		{"unavailable", stepData, &upstream.Error{StatusCode: 503, Message: "down"}, false,
			"The processor was unavailable (HTTP 503)."},
		{"rate limited", stepData, &upstream.Error{StatusCode: 429}, false,
			"The processor asked the portal to slow down (HTTP 429)."},
		{"no answer", stepLink, &upstream.Error{Err: errors.New("connection reset")}, false,
			"The processor did not answer."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pe := stepFailed(tt.step, fmt.Errorf("wrapped: %w", tt.err))
			if pe.permanent != tt.permanent {
				t.Errorf("permanent = %v, want %v", pe.permanent, tt.permanent)
			}
			if !strings.HasPrefix(pe.message, tt.want) {
				t.Errorf("message = %q, want it to start with %q", pe.message, tt.want)
			}
		})
	}
	if pe := classifyPush(context.Canceled); pe.permanent {
		t.Error("an interrupted push is not permanent")
	}
	if pe := classifyPush(errors.New("database gone")); pe.permanent || pe.message == "" {
		t.Errorf("a database error: %+v", pe)
	}
}

func TestProgressSteps(t *testing.T) {
	at := time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)
	failed := "The processor refused the upload (HTTP 400)."
	docs := []models.Document{
		{DisplayName: "statement.pdf", UpstreamStatus: "uploaded", UpstreamUploadedAt: &at},
		{DisplayName: "check.pdf", UpstreamStatus: "failed", UpstreamError: &failed},
	}
	states := func(p Progress) string {
		var s []string
		for _, st := range p.Steps {
			s = append(s, st.State)
		}
		return strings.Join(s, ",")
	}
	for _, tt := range []struct {
		name string
		app  models.Application
		want string
		done int
	}{
		{"just submitted", models.Application{Status: models.StatusSubmitting, PushAttempts: 1},
			"active,waiting,done,waiting,waiting", 1},
		{"started, data sent", models.Application{Status: models.StatusSubmitting, UpstreamStartedAt: &at, DataSentAt: &at},
			"done,done,done,active,waiting", 3},
		{"stopped at a document", models.Application{Status: models.StatusNeedsAttention, UpstreamStartedAt: &at, DataSentAt: &at},
			"done,done,done,failed,waiting", 3},
		{"linked", models.Application{Status: models.StatusLinked, UpstreamStartedAt: &at, DataSentAt: &at, LinkedAt: &at, HandoffLink: new("https://x.example/app/1")},
			"done,done,done,waiting,done", 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := buildProgress(&tt.app, docs)
			if got := states(p); got != tt.want || p.Done != tt.done || p.Total() != 5 {
				t.Errorf("states %s (done %d of %d), want %s (done %d)", got, p.Done, p.Total(), tt.want, tt.done)
			}
			if p.Summary() == "" {
				t.Error("no summary")
			}
		})
	}
	p := buildProgress(&models.Application{Status: models.StatusSubmitting, UpstreamStartedAt: &at, PushAttempts: 3}, nil)
	if d := p.Steps[1].Detail; d != "Attempt 3." {
		t.Errorf("detail of the step under way = %q", d)
	}
	if s := p.Summary(); s != "Submitting: step 2 of 3, send the application details." {
		t.Errorf("summary = %q", s)
	}
}
