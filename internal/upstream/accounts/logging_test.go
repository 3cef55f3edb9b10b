package accounts_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLogsHoldNoSecrets(t *testing.T) {
	var buf syncBuffer
	e := newEnv(t, nil, nil)
	c := e.client(t, func(cfg *upstream.Config) {
		keyed(cfg)
		cfg.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	ctx := context.Background()
	id, err := c.StartApplication(ctx, upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode, Details: fullDetails()})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	content := []byte("%PDF secret statement")
	up, err := c.CreateFile(ctx, id, pdfMeta(content))
	if err != nil {
		t.Fatalf("create file: %v", err)
	}
	if err := c.UploadToPresignedURL(ctx, up.PresignedURL, bytes.NewReader(content), int64(len(content)), "application/pdf"); err != nil {
		t.Fatalf("upload: %v", err)
	}
	logs := buf.String()
	for _, secret := range []string{apiSecret, "sbx_", "123-45-6789", "123456789", "000123456789", "X-Amz-Signature", "secret statement"} {
		if strings.Contains(logs, secret) {
			t.Errorf("logs contain %q:\n%s", secret, logs)
		}
	}
	for _, want := range []string{"path=/auth", "path=/application/start", "status=201", "duration="} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
}
