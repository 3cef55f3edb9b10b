package mail

import "github.com/payportal/portal/internal/keys"

// SealedColumns are the outbox's sealed values, for the key ring's registry
// (internal/keys): each message's secret link.
func SealedColumns() []keys.Column {
	return []keys.Column{
		keys.SealedColumn("mail_outbox", "secret_link", []string{"id"}, func(k keys.Key) string { return linkAAD(k.UUID(0)) }),
	}
}
