package merchants

import "github.com/payportal/portal/internal/keys"

// SealedColumns are the merchants' sealed credentials, for the key ring's registry
// (internal/keys): the payment account's bearer token and the terminal cloud's API key.
func SealedColumns() []keys.Column {
	key := []string{"merchant_id"}
	return []keys.Column{
		keys.SealedColumn("merchant_payment_accounts", "token_sealed", key,
			func(k keys.Key) string { return secretAAD(k.UUID(0), aadPaymentToken) }),
		keys.SealedColumn("merchant_terminal_accounts", "api_key_sealed", key,
			func(k keys.Key) string { return secretAAD(k.UUID(0), aadTerminalKey) }),
	}
}
