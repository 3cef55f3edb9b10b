package webhooks

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/google/uuid"
)

// maxAnswerBytes is as much of a receiver's answer as is read (and thrown away): enough
// to let the connection be reused, never kept or logged.
const maxAnswerBytes = 4 << 10

// userAgent names the sender to receivers.
const userAgent = "PayPortal-Webhooks/1.0"

// Sender posts signed deliveries. Its client never follows a redirect, ignores proxy
// settings (a proxy would connect for it, past the address check) and connects only to
// public addresses unless AllowPrivate.
type Sender struct {
	client  *http.Client
	timeout time.Duration
}

// SenderOptions configure a Sender.
type SenderOptions struct {
	// AllowPrivate lets deliveries reach private and loopback addresses (tests, make run).
	AllowPrivate bool
	// Timeout bounds one attempt (10 s when zero).
	Timeout time.Duration
	// TLS replaces the TLS settings (tests trust their receiver's certificate).
	TLS *tls.Config
}

// NewSender returns the sender of deliveries.
func NewSender(o SenderOptions) *Sender {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	dialer := &net.Dialer{Timeout: o.Timeout, KeepAlive: 30 * time.Second, Control: dialControl(o.AllowPrivate)}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSClientConfig:       o.TLS,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
	}
	client := &http.Client{
		Transport: transport,
		Timeout:   o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return &Sender{client: client, timeout: o.Timeout}
}

// Answer is what one attempt got: the receiver's status code (0 when it did not answer),
// how long it took, and what went wrong in words (empty on success). It never holds the
// answer's body.
type Answer struct {
	Code     int
	Took     time.Duration
	Problem  string
	Accepted bool
}

// Send posts body to address with the signature headers; a 2xx answer is accepted.
func (s *Sender) Send(ctx context.Context, address string, id uuid.UUID, at time.Time, body []byte, secrets []string) Answer {
	headers, err := Sign(id, at, body, secrets...)
	if err != nil {
		return Answer{Problem: "The endpoint's signing secret could not be read."}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, address, bytes.NewReader(body))
	if err != nil {
		return Answer{Problem: "The endpoint's address is not valid."}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return Answer{Took: time.Since(start), Problem: problemOf(err, s.timeout)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswerBytes))
	_ = resp.Body.Close()
	a := Answer{Code: resp.StatusCode, Took: time.Since(start)}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		a.Accepted = true
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		a.Problem = fmt.Sprintf("The receiver answered %d, a redirect; redirects are not followed. Register the final address.", resp.StatusCode)
	default:
		a.Problem = fmt.Sprintf("The receiver answered %d.", resp.StatusCode)
	}
	return a
}

// problemOf words a failed request without its URL (which the admin knows) or anything
// the receiver sent.
func problemOf(err error, timeout time.Duration) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var recordErr tls.RecordHeaderError
	switch {
	case errors.Is(err, ErrPrivateAddress):
		return "Not sent: the address resolves to a private, loopback or reserved range."
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Sprintf("No answer within %s.", timeout)
	case errors.As(err, &dnsErr):
		return "The receiver's name could not be resolved."
	case errors.As(err, &certErr):
		return "The receiver's TLS certificate is not valid for its name."
	case errors.As(err, &recordErr):
		return "The receiver does not speak TLS on that port."
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return fmt.Sprintf("No answer within %s.", timeout)
	}
	return "The receiver could not be reached (connection refused or closed)."
}
