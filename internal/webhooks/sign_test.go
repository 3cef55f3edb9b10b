package webhooks_test

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/payportal/portal/internal/webhooks"
)

// headerOf turns Sign's headers into a request's.
func headerOf(h map[string]string) http.Header {
	out := http.Header{}
	for k, v := range h {
		out.Set(k, v)
	}
	return out
}

// The signature is checked by Standard Webhooks' own library (its Go module), never by
// our signer: one secret, both secrets of a rotation, and what must fail.
func TestSignaturesVerifyWithTheReferenceLibrary(t *testing.T) {
	const current = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo="
	const previous = "whsec_c2VjcmV0IHRoYXQgd2FzIHJlcGxhY2VkIHllc3RlcmRheQ=="
	id, now := uuid.New(), time.Now()
	body := []byte(`{"id":"` + id.String() + `","type":"application.boarded","data":{"object":"application"}}`)

	h, err := webhooks.Sign(id, now, body, current, previous)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(h[webhooks.HeaderSignature])); n != 2 {
		t.Fatalf("a rotation sends two signatures, got %d: %q", n, h[webhooks.HeaderSignature])
	}
	for _, secret := range []string{current, previous} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(body, headerOf(h)); err != nil {
			t.Errorf("the reference library refuses a signature of %.12s…: %v", secret, err)
		}
	}

	wh, _ := standardwebhooks.NewWebhook(current)
	tampered := append([]byte(nil), body...)
	tampered[len(tampered)-3] = 'X'
	if err := wh.Verify(tampered, headerOf(h)); !errors.Is(err, standardwebhooks.ErrNoMatchingSignature) {
		t.Errorf("a changed body verified: %v", err)
	}
	stale, _ := webhooks.Sign(id, now.Add(-6*time.Minute), body, current)
	if err := wh.Verify(body, headerOf(stale)); !errors.Is(err, standardwebhooks.ErrMessageTooOld) {
		t.Errorf("a signature six minutes old verified: %v", err)
	}
	other, _ := standardwebhooks.NewWebhook("whsec_" + base64.StdEncoding.EncodeToString([]byte("another endpoint's secret key!!!")))
	if err := other.Verify(body, headerOf(h)); err == nil {
		t.Error("another secret verified the signature")
	}
}

func TestSignRefusesSecretsOutsideTheSpecification(t *testing.T) {
	for _, s := range []string{"", "whsec_", "whsec_not base64!", "whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 23)),
		"whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 65))} {
		if _, err := webhooks.Sign(uuid.New(), time.Now(), []byte("{}"), s); err == nil {
			t.Errorf("secret %q accepted", s)
		}
	}
}
