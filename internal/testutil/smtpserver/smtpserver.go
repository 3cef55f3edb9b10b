// Package smtpserver runs an in-process SMTP server for tests: plain text on
// 127.0.0.1, optional PLAIN authentication, every accepted message captured and
// parsed, and failures on demand to exercise retries.
package smtpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one message the server accepted.
type Message struct {
	From string
	To   []string
	Raw  []byte
	// Parsed from Raw.
	Subject   string
	Header    map[string][]string
	Text      string
	HTML      string
	MessageID string
	// Accepted is when the server accepted the message (the end of DATA).
	Accepted time.Time
}

// Server is a running test SMTP server.
type Server struct {
	Host string
	Port int

	srv      *smtp.Server
	messages chan Message

	mu           sync.Mutex
	failNext     int
	failCode     int
	username     string
	password     string
	attempts     int
	accepted     []Message
	parseFailure error
}

// Option adjusts the server before it starts.
type Option func(*Server)

// WithAuth requires PLAIN authentication with these credentials.
func WithAuth(username, password string) Option {
	return func(s *Server) { s.username, s.password = username, password }
}

// Start runs a server on 127.0.0.1 at a free port until the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{messages: make(chan Message, 1000), failCode: 451}
	for _, o := range opts {
		o(s)
	}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.MaxMessageBytes = 10 << 20
	srv.ErrorLog = discardLogger{}
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("smtpserver: listen: %v", err)
	}
	s.srv = srv
	s.Host, s.Port = "127.0.0.1", ln.Addr().(*net.TCPAddr).Port
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// Addr is host:port.
func (s *Server) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// PortString is the port as PORTAL_SMTP_PORT expects it.
func (s *Server) PortString() string { return strconv.Itoa(s.Port) }

// FailNext makes the next n deliveries fail with a temporary 451 answer to DATA.
func (s *Server) FailNext(n int) { s.FailNextWith(n, 451) }

// FailNextWith makes the next n deliveries fail with the given SMTP code: a 4xx
// code is temporary, a 5xx code permanent.
func (s *Server) FailNextWith(n, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext, s.failCode = n, code
}

// Attempts counts every delivery attempt that reached DATA, failed or not.
func (s *Server) Attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts
}

// Messages returns every accepted message so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.accepted...)
}

// WaitForMessage returns the next accepted message, in order of acceptance, or
// an error when ctx ends first.
func (s *Server) WaitForMessage(ctx context.Context) (Message, error) {
	select {
	case m := <-s.messages:
		return m, nil
	case <-ctx.Done():
		return Message{}, fmt.Errorf("smtpserver: no message arrived: %w", ctx.Err())
	}
}

// WaitFor is WaitForMessage with a timeout that fails the test.
func (s *Server) WaitFor(t testing.TB, timeout time.Duration) Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	m, err := s.WaitForMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// accept records a delivery attempt and decides whether it fails.
func (s *Server) accept(from string, to []string, raw []byte) error {
	s.mu.Lock()
	s.attempts++
	if s.failNext > 0 {
		s.failNext--
		code := s.failCode
		s.mu.Unlock()
		enhanced := smtp.EnhancedCode{4, 3, 0}
		if code >= 500 {
			enhanced = smtp.EnhancedCode{5, 3, 0}
		}
		return &smtp.SMTPError{Code: code, EnhancedCode: enhanced, Message: "Test server told to refuse this message"}
	}
	m, err := parse(raw)
	if err != nil && s.parseFailure == nil {
		s.parseFailure = err
	}
	m.From, m.To, m.Raw, m.Accepted = from, to, raw, time.Now()
	s.accepted = append(s.accepted, m)
	s.mu.Unlock()
	s.messages <- m
	return nil
}

type backend struct{ s *Server }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

// session is one SMTP conversation.
type session struct {
	s      *Server
	authed bool
	from   string
	to     []string
}

func (se *session) AuthMechanisms() []string {
	if se.s.username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (se *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, username, password string) error {
		if username != se.s.username || password != se.s.password {
			return smtp.ErrAuthFailed
		}
		se.authed = true
		return nil
	}), nil
}

func (se *session) Mail(from string, _ *smtp.MailOptions) error {
	if se.s.username != "" && !se.authed {
		return smtp.ErrAuthRequired
	}
	se.from = from
	return nil
}

func (se *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	se.to = append(se.to, to)
	return nil
}

func (se *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	return se.s.accept(se.from, se.to, raw)
}

func (se *session) Reset()        { se.from, se.to = "", nil }
func (se *session) Logout() error { return nil }

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
func (discardLogger) Println(...any)        {}

// ParseError reports the first message the server could not parse, if any.
func (s *Server) ParseError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.parseFailure == nil {
		return nil
	}
	return errors.Join(errors.New("smtpserver: unparsable message"), s.parseFailure)
}
