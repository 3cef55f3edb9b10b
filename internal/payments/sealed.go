package payments

import "github.com/payportal/portal/internal/keys"

// SealedColumns are the payments room's sealed personal data, for the key ring's registry
// (internal/keys): customers' names and e-mail addresses, transactions' billing data and
// who gave a consent.
func SealedColumns() []keys.Column {
	id := []string{"id"}
	return []keys.Column{
		keys.SealedColumn("payment_customers", "name_sealed", id, func(k keys.Key) string { return customerAAD(k.UUID(0), "name") }),
		keys.SealedColumn("payment_customers", "email_sealed", id, func(k keys.Key) string { return customerAAD(k.UUID(0), "email") }),
		keys.SealedColumn("ledger_transactions", "billing_sealed", id, func(k keys.Key) string { return billingAAD(k.UUID(0)) }),
		keys.SealedColumn("payment_consents", "given_by_sealed", id, func(k keys.Key) string { return consentAAD(k.UUID(0)) }),
	}
}
