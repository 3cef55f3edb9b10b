package transport_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/upstream/transport"
)

// server answers with the statuses given, one per request, then 200 {}.
func server(t *testing.T, answers ...func(w http.ResponseWriter)) (*httptest.Server, *int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		_, _ = io.Copy(io.Discard, r.Body)
		if i < len(answers) {
			answers[i](w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok": true}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func status(code int, retryAfter string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"message": "try later"}`))
	}
}

func newClient(t *testing.T, base string, logs io.Writer, rec *testutil.Waits) *transport.Client {
	t.Helper()
	c, err := transport.New(transport.Config{Name: "test", BaseURL: base, Sleep: rec.Sleep, MaxRetryAfter: 2 * time.Second,
		Logger: slog.New(slog.NewTextHandler(logs, nil))},
		transport.Defaults{Timeout: 5 * time.Second, MaxAttempts: 4, RetryBaseDelay: 100 * time.Millisecond, RetryMaxDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewChecksTheAddressAndTheNumbers(t *testing.T) {
	for _, cfg := range []transport.Config{
		{Name: "x", BaseURL: "ftp://host"},
		{Name: "x", BaseURL: "/relative"},
		{Name: "x", BaseURL: "http://host", Timeout: -1},
		{Name: "x", BaseURL: "http://host", MaxRetryAfter: -time.Second},
	} {
		if _, err := transport.New(cfg, transport.Defaults{}); err == nil || !strings.HasPrefix(err.Error(), "x: ") {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}

func TestBackoffStaysInBounds(t *testing.T) {
	base, ceiling := 100*time.Millisecond, time.Second
	c, err := transport.New(transport.Config{Name: "x", BaseURL: "http://host", RetryBaseDelay: base, RetryMaxDelay: ceiling}, transport.Defaults{})
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 8; n++ {
		full := min(base<<(n-1), ceiling)
		seen := map[time.Duration]bool{}
		for range 50 {
			d := c.Backoff(n)
			if d < full/2 || d > full {
				t.Fatalf("Backoff(%d) = %v, want within [%v, %v]", n, d, full/2, full)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("Backoff(%d) has no jitter: %v", n, seen)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{" 7 ", 7 * time.Second},
		{"-1", 0},
		{now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second},
		{now.Add(-10 * time.Second).Format(http.TimeFormat), 0},
		{"garbage", 0},
	} {
		if got := transport.RetryAfter(tt.in, now); got != tt.want {
			t.Errorf("RetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestRefusalReadsEveryShape(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
		want   transport.Refusal
	}{
		{"message and field", 400, `{"message": "pricingCode: unknown", "field": "pricingCode"}`,
			transport.Refusal{Message: "pricingCode: unknown", Field: "pricingCode"}},
		{"error string", 401, `{"error": "invalid token"}`, transport.Refusal{Message: "invalid token"}},
		{"message before error string", 400, `{"message": "m", "error": "e"}`, transport.Refusal{Message: "m"}},
		{"envelope", 409, `{"Success": false, "Status": "Conflict", "StatusCode": 409, "Error": {"Message": "Device busy"}}`,
			transport.Refusal{Message: "Device busy", Status: "Conflict"}},
		{"envelope before top-level message", 500, `{"Status": "InternalServerError", "Message": "top", "Error": {"Message": "inner"}}`,
			transport.Refusal{Message: "inner", Status: "InternalServerError"}},
		{"top-level Message", 404, `{"Status": "NotFound", "Message": "no such location"}`,
			transport.Refusal{Message: "no such location", Status: "NotFound"}},
		{"S3 XML", 403, `<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>`,
			transport.Refusal{Message: "Request has expired", Code: "AccessDenied"}},
		{"plain text", 502, "upstream connect error", transport.Refusal{Message: "upstream connect error"}},
		{"long plain text is cut", 502, strings.Repeat("x", 300), transport.Refusal{Message: strings.Repeat("x", 200)}},
		{"HTML page", 502, "<html><body>Bad gateway</body></html>", transport.Refusal{Message: "Bad Gateway"}},
		{"JSON without a message", 503, `{"retry": true}`, transport.Refusal{Message: "Service Unavailable"}},
		{"empty", 504, "", transport.Refusal{Message: "Gateway Timeout"}},
	} {
		got := transport.Answer{Status: tt.status, Body: []byte(tt.body)}.Refusal()
		if got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestUnsentAndTransient(t *testing.T) {
	for _, tt := range []struct {
		a                 transport.Answer
		unsent, transient bool
	}{
		{transport.Answer{Status: 0, Sent: false}, true, true},
		{transport.Answer{Status: 0, Sent: true}, false, true},
		{transport.Answer{Status: 429, Sent: true}, true, true},
		{transport.Answer{Status: 502, Sent: true}, false, true},
		{transport.Answer{Status: 503, Sent: true}, false, true},
		{transport.Answer{Status: 504, Sent: true}, false, true},
		{transport.Answer{Status: 500, Sent: true}, false, false},
		{transport.Answer{Status: 409, Sent: true}, false, false},
		{transport.Answer{Status: 400, Sent: true}, false, false},
	} {
		if tt.a.Unsent() != tt.unsent || tt.a.Transient() != tt.transient {
			t.Errorf("%d (sent %v): unsent %v transient %v, want %v %v", tt.a.Status, tt.a.Sent,
				tt.a.Unsent(), tt.a.Transient(), tt.unsent, tt.transient)
		}
	}
	for _, tt := range []struct {
		status int
		err    error
		want   bool
	}{
		{0, errors.New("connection reset"), true},
		{0, context.DeadlineExceeded, true},
		{0, context.Canceled, false},
		{408, nil, true}, {425, nil, true}, {429, nil, true}, {500, nil, true}, {503, nil, true},
		{501, nil, false}, {400, nil, false}, {404, nil, false}, {409, nil, false},
	} {
		if got := transport.Temporary(tt.status, tt.err); got != tt.want {
			t.Errorf("Temporary(%d, %v) = %v", tt.status, tt.err, got)
		}
	}
}

// Do repeats while the client's rule says so, waits the backoff or the
// Retry-After asked for (capped), and stops at the last attempt.
func TestDoRetriesAsTheRuleSays(t *testing.T) {
	srv, n := server(t, status(503, ""), status(429, "60"), status(502, ""))
	rec := &testutil.Waits{}
	var logs bytes.Buffer
	c := newClient(t, srv.URL, &logs, rec)
	a, err := c.Do(context.Background(), transport.Request{Op: "read", Method: http.MethodGet, Path: "/things/1"},
		transport.RepeatWhen(func(transport.Answer) bool { return true }))
	if err != nil || !a.OK() || string(a.Body) != `{"ok": true}` || a.Attempt != 4 || *n != 4 {
		t.Fatalf("answer %+v, err %v, %d requests", a, err, *n)
	}
	if len(rec.All()) != 3 || rec.All()[1] != 2*time.Second || rec.All()[0] > 100*time.Millisecond || rec.All()[2] > 400*time.Millisecond {
		t.Errorf("waits %v, want a backoff, the capped Retry-After, a backoff", rec.All())
	}
	for _, want := range []string{`msg="test call will be retried" op=read method=GET path=/things/1 attempt=1 status=503`,
		`msg="test call" op=read method=GET path=/things/1 attempt=4 status=200`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %q:\n%s", want, logs.String())
		}
	}

	// Out of attempts: the last answer, no error.
	srv2, _ := server(t, status(503, ""), status(503, ""), status(503, ""), status(503, ""), status(503, ""))
	c2 := newClient(t, srv2.URL, io.Discard, &testutil.Waits{})
	if a, err := c2.Do(context.Background(), transport.Request{Method: http.MethodGet, Path: "/x"},
		transport.RepeatWhen(func(transport.Answer) bool { return true })); err != nil || a.Status != 503 || a.Attempt != 4 {
		t.Errorf("out of attempts: %+v %v", a, err)
	}
	// Stop ends at once; AgainNow spends no attempt.
	srv3, n3 := server(t, status(401, ""), status(401, ""), status(400, ""))
	c3 := newClient(t, srv3.URL, io.Discard, &testutil.Waits{})
	a, err = c3.Do(context.Background(), transport.Request{Method: http.MethodGet, Path: "/x", Attempts: 1},
		func(a transport.Answer) transport.Next {
			if a.Status == 401 {
				return transport.AgainNow
			}
			return transport.Stop // a 400 is final
		})
	if err != nil || a.Status != 400 || *n3 != 3 || a.Refusal().Message != "try later" {
		t.Errorf("stop after two refreshes: %+v %v, %d requests", a, err, *n3)
	}
}

// Prepare sets the headers of each attempt, and its error ends the request
// unsent; a cancelled context ends Do.
func TestDoPrepareAndCancel(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization")+"|"+r.Header.Get("Content-Type")+"|"+r.Header.Get("User-Agent"))
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, io.Discard, &testutil.Waits{})
	i := 0
	refused := errors.New("no token")
	_, err := c.Do(context.Background(), transport.Request{Method: http.MethodPost, Path: "/x", Payload: []byte(`{}`),
		Prepare: func(_ context.Context, h http.Header) error {
			i++
			if i == 3 {
				return refused
			}
			h.Set("Authorization", "Bearer t"+string(rune('0'+i)))
			return nil
		}}, transport.RepeatWhen(func(transport.Answer) bool { return true }))
	if !errors.Is(err, refused) || len(got) != 2 || got[0] != "Bearer t1|application/json|" || got[1] != "Bearer t2|application/json|" {
		t.Errorf("err %v, requests %q", err, got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Do(ctx, transport.Request{Method: http.MethodGet, Path: "/x"},
		transport.RepeatWhen(func(transport.Answer) bool { return true })); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// A whole URL's query (a presigned URL's signature) is never logged nor
// kept in an error; a stream is sent with its exact length and type.
func TestNoQueryInLogsOrErrors(t *testing.T) {
	var logs bytes.Buffer
	c := newClient(t, "http://127.0.0.1:1", &logs, &testutil.Waits{})
	u, _ := url.Parse("http://127.0.0.1:1/_store/app/file?X-Amz-Signature=secret-signature")
	a, err := c.Send(context.Background(), transport.Request{Method: http.MethodPut, URL: u, Length: 4, ContentType: "application/pdf",
		Stream: func(int) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("%PDF")), nil }}, 1)
	if err != nil || a.Status != 0 || a.Err == nil {
		t.Fatalf("send to a closed port: %+v %v", a, err)
	}
	if strings.Contains(a.Err.Error(), "secret-signature") || strings.Contains(logs.String(), "secret-signature") {
		t.Errorf("the signature leaked: %v\n%s", a.Err, logs.String())
	}
	if !strings.Contains(logs.String(), "url=http://127.0.0.1:1/_store/app/file") || !strings.Contains(logs.String(), "bytes=4") {
		t.Errorf("logs: %s", logs.String())
	}

	var gotLen int64
	var gotType, gotAccept string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotLen, gotType, gotAccept = r.ContentLength, r.Header.Get("Content-Type"), r.Header.Get("Accept")
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	t.Cleanup(srv.Close)
	u, _ = url.Parse(srv.URL + "/_store/app/file?sig=1")
	a, err = c.Send(context.Background(), transport.Request{Method: http.MethodPut, URL: u, Length: 4, ContentType: "application/pdf",
		Stream: func(int) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("%PDF")), nil }}, 1)
	if err != nil || !a.OK() || gotLen != 4 || gotType != "application/pdf" || gotAccept != "" {
		t.Errorf("upload: %+v %v; length %d type %q accept %q", a, err, gotLen, gotType, gotAccept)
	}
}
