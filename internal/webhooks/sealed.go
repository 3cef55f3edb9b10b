package webhooks

import "github.com/payportal/portal/internal/keys"

// SealedColumns are the webhooks room's columns sealed with the key ring, for the key
// registry (internal/keys): each endpoint's signing secret and, during a rotation's
// overlap, the secret it replaced.
func SealedColumns() []keys.Column {
	id := []string{"id"}
	return []keys.Column{
		keys.SealedColumn("webhook_endpoints", "secret_sealed", id, func(k keys.Key) string { return sealAAD(k.UUID(0), "secret") }),
		keys.SealedColumn("webhook_endpoints", "previous_secret_sealed", id, func(k keys.Key) string { return sealAAD(k.UUID(0), "previous_secret") }),
	}
}
