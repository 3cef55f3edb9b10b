package partnerapi

import "github.com/payportal/portal/internal/keys"

// SealedColumns are the partner API's columns sealed with the key ring, for the key
// registry (internal/keys): the stored answers of idempotent requests, kept 24 hours.
func SealedColumns() []keys.Column {
	return []keys.Column{
		keys.SealedColumn("api_idempotency", "body", []string{"key_id", "idempotency_key"}, func(k keys.Key) string {
			idem := ""
			if len(k) > 1 {
				idem = k[1]
			}
			return replyAAD(k.UUID(0), idem)
		}),
	}
}
