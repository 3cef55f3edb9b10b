package auth

import (
	"github.com/payportal/portal/internal/keys"
	"github.com/payportal/portal/internal/models"
)

// SealedColumns are the users' sealed values, for the key ring's registry
// (internal/keys): each two-step sign-in secret.
func SealedColumns() []keys.Column {
	return []keys.Column{
		keys.SealedColumn("users", "mfa_secret", []string{"id"}, func(k keys.Key) string { return mfaAAD(&models.User{ID: k.UUID(0)}) }),
	}
}
