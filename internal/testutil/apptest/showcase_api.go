package apptest

import (
	"context"
	"testing"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/models"
)

// apiKeys seeds the partner API's keys the admins' page lists: a rep's key in use, a
// reseller-wide read-only key never used, and an old key revoked after its vendor
// rotated to the new one.
func (s *Showcase) apiKeys(t testing.TB, admin, rep *models.User) {
	t.Helper()
	ctx := context.Background()
	keys := s.Env.App.APIKeys
	create := func(in apikeys.NewKey) (*apikeys.Key, string) {
		k, secret, err := keys.Create(ctx, admin, in)
		if err != nil {
			t.Fatalf("create the API key %q: %v", in.Name, err)
		}
		return k, secret
	}
	old, _ := create(apikeys.NewKey{Name: "Salon Pro (2025)", Scope: apikeys.ScopeRep, RepID: rep.ID.String(), Access: apikeys.AccessWrite})
	_, secret := create(apikeys.NewKey{Name: "Salon Pro", Scope: apikeys.ScopeRep, RepID: rep.ID.String(), Access: apikeys.AccessWrite})
	create(apikeys.NewKey{Name: "Reporting export", Scope: apikeys.ScopeReseller, Access: apikeys.AccessRead})
	if _, err := keys.Authenticate(ctx, secret); err != nil {
		t.Fatalf("use the API key: %v", err)
	}
	if _, err := keys.Revoke(ctx, admin, old.ID); err != nil {
		t.Fatal(err)
	}
}
