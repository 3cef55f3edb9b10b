package mail

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/payportal/portal/internal/config"
)

// Sender hands one message to a mail server.
type Sender interface {
	Send(ctx context.Context, m *Message) error
}

// smtpTimeout bounds connecting to and talking with the SMTP server.
const smtpTimeout = 30 * time.Second

// SMTPSender delivers through the configured SMTP server with go-mail.
type SMTPSender struct {
	cfg      config.SMTPConfig
	from     *mail.Address
	msgIDDom string
}

// NewSender returns an SMTP sender for cfg, or a nil Sender when no SMTP host
// is configured, in which case messages are held in the outbox. A From address
// without a display name is shown under fromName (the reseller's name).
func NewSender(cfg config.SMTPConfig, fromName string) (Sender, error) {
	if cfg.Host == "" {
		return nil, nil
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("PORTAL_SMTP_FROM is not a valid e-mail address: %w", err)
	}
	if from.Name == "" {
		from.Name = fromName
	}
	domain := from.Address[strings.LastIndex(from.Address, "@")+1:]
	return &SMTPSender{cfg: cfg, from: from, msgIDDom: domain}, nil
}

// Send delivers m over one SMTP connection.
func (s *SMTPSender) Send(ctx context.Context, m *Message) error {
	msg, err := s.compose(m)
	if err != nil {
		return permanentError{err}
	}
	client, err := gomail.NewClient(s.cfg.Host, s.clientOptions()...)
	if err != nil {
		return permanentError{fmt.Errorf("SMTP settings: %w", err)}
	}
	return client.DialAndSendWithContext(ctx, msg)
}

func (s *SMTPSender) clientOptions() []gomail.Option {
	opts := []gomail.Option{gomail.WithTimeout(smtpTimeout)}
	switch {
	case s.cfg.Port == 465:
		// Port 465 speaks TLS from the first byte (implicit TLS), not STARTTLS.
		opts = append(opts, gomail.WithSSL())
	case s.cfg.TLSPolicy == "none":
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	case s.cfg.TLSPolicy == "opportunistic":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	opts = append(opts, gomail.WithPort(s.cfg.Port))
	if s.cfg.Username != "" {
		auth := gomail.SMTPAuthAutoDiscover
		if s.cfg.TLSPolicy == "none" && s.cfg.Port != 465 {
			// The operator chose a connection without TLS (a local relay); the
			// discovery refuses plain-text mechanisms there, so name one.
			auth = gomail.SMTPAuthPlainNoEnc
		}
		opts = append(opts, gomail.WithSMTPAuth(auth), gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password))
	}
	return opts
}

// compose builds the MIME message: plain text, with the HTML part as an
// alternative when there is one. Its Message-ID is derived from the outbox id,
// so a message delivered twice (after a crash between sending and recording)
// can be recognised as one by the receiving side.
func (s *SMTPSender) compose(m *Message) (*gomail.Msg, error) {
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(s.from)
	if err := msg.AddToFormat(m.ToName, m.To); err != nil {
		return nil, fmt.Errorf("recipient: %w", err)
	}
	if m.ReplyTo != "" {
		if err := msg.ReplyTo(m.ReplyTo); err != nil {
			return nil, fmt.Errorf("reply-to: %w", err)
		}
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.ID.String() + "@" + s.msgIDDom)
	msg.SetDateWithValue(m.CreatedAt)
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

// permanentError marks a failure that another attempt cannot fix.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// IsPermanent reports whether a delivery error is final: the message itself is
// unusable, or the server refused it with a 5xx answer. Connection problems,
// timeouts and 4xx answers are worth another attempt.
func IsPermanent(err error) bool {
	var p permanentError
	if errors.As(err, &p) {
		return true
	}
	var se *gomail.SendError
	if errors.As(err, &se) {
		return !se.IsTemp() && se.ErrorCode() >= 500
	}
	return false
}

// maxReasonLength bounds the error text kept on a message.
const maxReasonLength = 400

// describe turns a delivery error into text fit to store and show to admins:
// no recipient address, no credentials, one line, bounded length.
func describe(err error, m *Message, cfg config.SMTPConfig) string {
	text := oneLine(err.Error())
	for _, secret := range []string{cfg.Password, m.To} {
		if len(secret) >= 3 {
			text = strings.ReplaceAll(text, secret, "[redacted]")
		}
	}
	if len(text) > maxReasonLength {
		text = text[:maxReasonLength] + "…"
	}
	return text
}
