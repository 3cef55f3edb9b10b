package mail

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/url"
	"regexp"
	"strings"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/audit"
)

// A message's secret link (the merchant's tracked link, an invitation) is never stored
// readable, and no sender can get that wrong: it exists only as a SecretLink, whose address
// nothing outside this package can read. Rendered into a template, printed, logged or
// encoded it is LinkPlaceholder, so the bodies hold the placeholder; the e-mail builders
// hand the link on in Content.SecretLink, and the outbox seals it with the key ring
// (mail_outbox.secret_link). It is opened only to deliver the message and for an admin's
// audited view of a held message. Enqueue refuses a body that holds a raw secret link.

// LinkPlaceholder stands for the secret link in a stored message's bodies: it is what a
// SecretLink renders as.
const LinkPlaceholder = "https://secret-link.invalid/kept-encrypted"

// HiddenLink is what an outbox page shows in place of a link it does not reveal.
const HiddenLink = "[link kept encrypted]"

// SecretLink is a message's secret link. Its address is readable only by the outbox,
// which seals it; everywhere else (templates, fmt, slog, JSON) it is LinkPlaceholder.
// The zero value is no link.
type SecretLink struct {
	url *secretURL
}

// secretURL holds the link in a closure: fmt prints an unexported field by reflection,
// without its methods (%q of a struct holding a SecretLink would show a string), but a
// function only as an address.
type secretURL struct{ open func() string }

func sealedAway(link string) *secretURL { return &secretURL{open: func() string { return link }} }

// NewSecretLink wraps link, an absolute http(s) address.
func NewSecretLink(link string) (SecretLink, error) {
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return SecretLink{}, errors.New("mail: a secret link must be an absolute http(s) URL")
	}
	return SecretLink{url: sealedAway(link)}, nil
}

// SecretLinkOf wraps base joined with path elements (publicURL, "invite", token): the
// usual way a sender makes its link.
func SecretLinkOf(base *url.URL, elem ...string) (SecretLink, error) {
	if base == nil {
		return SecretLink{}, errors.New("mail: a secret link needs the portal's address")
	}
	return NewSecretLink(base.JoinPath(elem...).String())
}

// IsZero reports whether l is no link.
func (l SecretLink) IsZero() bool { return l.url == nil }

// secretLinkOf wraps a link the outbox opened ("" for none).
func secretLinkOf(link string) SecretLink {
	if link == "" {
		return SecretLink{}
	}
	return SecretLink{url: sealedAway(link)}
}

// address is the link itself, for the outbox alone.
func (l SecretLink) address() string {
	if l.url == nil {
		return ""
	}
	return l.url.open()
}

// String is LinkPlaceholder ("" for no link): what a template writes for the link.
func (l SecretLink) String() string {
	if l.url == nil {
		return ""
	}
	return LinkPlaceholder
}

// Format writes String for every verb, so no fmt verb (%v, %+v, %#v, %x...) shows the link.
func (l SecretLink) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, l.String()) }

// GoString is String.
func (l SecretLink) GoString() string { return l.String() }

// MarshalText is String, for JSON and every text encoding.
func (l SecretLink) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// LogValue is String, for slog.
func (l SecretLink) LogValue() slog.Value { return slog.StringValue(l.String()) }

// linkAAD binds a sealed link to its message.
func linkAAD(id uuid.UUID) string { return "mail_outbox:" + id.String() + ":secret_link" }

// HasSecretLink reports whether the message carries a sealed link.
func (m Message) HasSecretLink() bool { return m.sealedLink != "" }

// WithLink returns the content with the placeholder replaced by link (escaped in the HTML
// part).
func (c Content) WithLink(link string) Content {
	c.Text = strings.ReplaceAll(c.Text, LinkPlaceholder, link)
	c.HTML = strings.ReplaceAll(c.HTML, LinkPlaceholder, html.EscapeString(link))
	return c
}

// sealLink seals m.SecretLink for storage, once m has its id. A message without one must
// not carry a raw secret link in its bodies: that is a sender that built its link as a
// string, and the message is refused rather than stored readable.
func (o *Outbox) sealLink(m *Message) error {
	if m.SecretLink.IsZero() {
		if legacyLink.MatchString(m.Text) || legacyLink.MatchString(m.HTML) {
			return errors.New("mail: a message's secret link must be given as a mail.SecretLink, never written into its bodies")
		}
		return nil
	}
	if o.ring == nil {
		return fmt.Errorf("mail: a message with a secret link needs the key ring")
	}
	link := m.SecretLink.address()
	if strings.Contains(m.Text, link) || strings.Contains(m.HTML, link) || !strings.Contains(m.Text, LinkPlaceholder) {
		return fmt.Errorf("mail: a message's secret link must stand in its bodies as mail.LinkPlaceholder")
	}
	sealed, err := o.ring.Encrypt(link, linkAAD(m.ID))
	if err != nil {
		return err
	}
	m.sealedLink, m.SecretLink = sealed, SecretLink{}
	return nil
}

// openLink returns a stored message's secret link in the clear, "" when it has none.
func (o *Outbox) openLink(m *Message) (string, error) {
	if m.sealedLink == "" {
		return "", nil
	}
	if o.ring == nil {
		return "", fmt.Errorf("mail: no key ring to open message %s's link", m.ID)
	}
	link, err := o.ring.Decrypt(m.sealedLink, linkAAD(m.ID))
	if err != nil {
		return "", fmt.Errorf("mail: opening message %s's link: %w", m.ID, err)
	}
	return link, nil
}

// RevealLink gives an admin the secret link of a held message, to hand over by other means,
// and records that they saw it. Other messages' links are not revealed: "" for those.
func (o *Outbox) RevealLink(ctx context.Context, actor uuid.UUID, m *Message) (string, error) {
	if m.Status != StatusHeld || m.sealedLink == "" {
		return "", nil
	}
	link, err := o.openLink(m)
	if err != nil {
		return "", err
	}
	err = audit.Record(ctx, o.pool, audit.Event{Subject: audit.Message(m.ID), Actor: &actor,
		Action: audit.ActionMessageLinkViewed, Details: map[string]any{"kind": string(m.Kind)}, At: o.now()})
	if err != nil {
		return "", err
	}
	return link, nil
}

// legacyLink finds a secret link written into a message's bodies before links were sealed:
// a tracked link or an invitation.
var legacyLink = regexp.MustCompile(`https?://[^\s"'<>]+/(?:l|invite)/[A-Za-z0-9_-]{20,}`)

// SealLegacyLinks moves the secret links of messages stored before links were sealed out of
// their bodies and seals them. It runs at start-up; each message is done on its own, so a
// pass cut short resumes. It returns how many it sealed.
func (o *Outbox) SealLegacyLinks(ctx context.Context) (int, error) {
	if o.ring == nil {
		return 0, nil
	}
	msgs, err := listMessages(ctx, o.pool, `WHERE secret_link IS NULL AND (text_body LIKE '%/l/%' OR text_body LIKE '%/invite/%')`)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range msgs {
		link := legacyLink.FindString(m.Text)
		if link == "" {
			continue
		}
		m.Text = strings.ReplaceAll(m.Text, link, LinkPlaceholder)
		m.HTML = strings.ReplaceAll(strings.ReplaceAll(m.HTML, html.EscapeString(link), LinkPlaceholder), link, LinkPlaceholder)
		m.SecretLink = secretLinkOf(link)
		if err := o.sealLink(&m); err != nil {
			return n, err
		}
		if _, err := o.pool.Exec(ctx, `UPDATE mail_outbox SET text_body = $2, html_body = $3, secret_link = $4 WHERE id = $1 AND secret_link IS NULL`,
			m.ID, m.Text, m.HTML, m.sealedLink); err != nil {
			return n, fmt.Errorf("seal the link of message %s: %w", m.ID, err)
		}
		n++
	}
	return n, nil
}
