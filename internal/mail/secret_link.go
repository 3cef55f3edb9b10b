package mail

import (
	"context"
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/audit"
)

// A message's secret link (the merchant's tracked link, an invitation) is never stored
// readable: the bodies hold LinkPlaceholder in its place and the link itself is sealed with
// the key ring (mail_outbox.secret_link). It is opened only to deliver the message and for
// an admin's audited view of a held message.

// LinkPlaceholder stands for the secret link in a stored message's bodies. Build a message
// with it as the link, and give the link itself in Message.SecretLink.
const LinkPlaceholder = "https://secret-link.invalid/kept-encrypted"

// HiddenLink is what an outbox page shows in place of a link it does not reveal.
const HiddenLink = "[link kept encrypted]"

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

// sealLink seals m.SecretLink for storage, once m has its id.
func (o *Outbox) sealLink(m *Message) error {
	if m.SecretLink == "" {
		return nil
	}
	if o.ring == nil {
		return fmt.Errorf("mail: a message with a secret link needs the key ring")
	}
	if strings.Contains(m.Text, m.SecretLink) || strings.Contains(m.HTML, m.SecretLink) || !strings.Contains(m.Text, LinkPlaceholder) {
		return fmt.Errorf("mail: a message's secret link must stand in its bodies as mail.LinkPlaceholder")
	}
	sealed, err := o.ring.Encrypt(m.SecretLink, linkAAD(m.ID))
	if err != nil {
		return err
	}
	m.sealedLink, m.SecretLink = sealed, ""
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
		m.SecretLink = link
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
