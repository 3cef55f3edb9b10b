package apikeys

import (
	"context"
	"crypto/subtle"
	"errors"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
)

// ErrUnauthenticated refuses a request whose key is missing, unknown, revoked, or acts
// as a rep who is no longer an active sales rep. The API answers 401 and says no more.
var ErrUnauthenticated = errors.New("apikeys: not a working API key")

// Options are the service's collaborators besides the store.
type Options struct {
	Now func() time.Time
	Log *slog.Logger
	// Random draws secrets; nil is crypto/rand.
	Random io.Reader
}

// Service holds the use cases of API keys: create, list, revoke and authenticate.
type Service struct {
	store  *Store
	now    func() time.Time
	log    *slog.Logger
	random io.Reader
}

// NewService returns the API keys service.
func NewService(store *Store, opts Options) *Service {
	s := &Service{store: store, now: opts.Now, log: opts.Log, random: opts.Random}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Store returns the service's store, for rooms that read keys (the webhooks' scope).
func (s *Service) Store() *Store { return s.store }

// NewKey is the admin's form for a new key.
type NewKey struct {
	Name string
	// Scope is "rep" or "reseller"; RepID names the rep of a rep-scoped key.
	Scope  ScopeKind
	RepID  string
	Access Access
}

// maxNameLength bounds a key's name.
const maxNameLength = 100

// validate checks the form, returning the scope it names.
func (s *Service) validate(ctx context.Context, in *NewKey) (Scope, error) {
	errs := apperr.FieldErrors{}
	in.Name = strings.TrimSpace(in.Name)
	switch {
	case in.Name == "":
		errs.Add("name", "Enter a name that says who uses the key, like “Salon Pro (production)”.")
	case utf8.RuneCountInString(in.Name) > maxNameLength || !utf8.ValidString(in.Name) || strings.ContainsRune(in.Name, 0):
		errs.Add("name", "Use at most 100 characters of text.")
	}
	if in.Access != AccessRead && in.Access != AccessWrite {
		errs.Add("access", "Choose read only, or read and write.")
	}
	scope, msg, err := s.scopeOf(ctx, in)
	if err != nil {
		return Scope{}, err
	}
	if msg != "" {
		errs.Add(scopeField(in.Scope), msg)
	}
	return scope, errs.Err()
}

// scopeField is the form field a scope's message belongs to.
func scopeField(k ScopeKind) string {
	if k == ScopeRep {
		return "rep_id"
	}
	return "scope"
}

// scopeOf reads the scope of the form, or the message that refuses it.
func (s *Service) scopeOf(ctx context.Context, in *NewKey) (Scope, string, error) {
	switch in.Scope {
	case ScopeReseller:
		return ResellerScope(), "", nil
	case ScopeRep:
	default:
		return Scope{}, "Choose whether the key acts as one sales rep or for the whole reseller.", nil
	}
	id, err := uuid.Parse(in.RepID)
	if err != nil {
		return Scope{}, "Choose the sales rep the key acts as.", nil
	}
	reps, err := s.store.reps(ctx)
	if err != nil {
		return Scope{}, "", err
	}
	for _, r := range reps {
		if r.ID == id {
			return RepScope(id), "", nil
		}
	}
	return Scope{}, "Choose an active sales rep from the list.", nil
}

// Create makes a key and returns it with its secret, which is shown this once and never
// again: only its hash is kept. The creation is recorded on the key's trail.
func (s *Service) Create(ctx context.Context, admin *models.User, in NewKey) (*Key, string, error) {
	if !admin.IsAdmin() {
		return nil, "", apperr.New(apperr.KindForbidden, "Only admins manage API keys.")
	}
	scope, err := s.validate(ctx, &in)
	if err != nil {
		return nil, "", err
	}
	prefix, token, err := newToken(s.random)
	if err != nil {
		return nil, "", err
	}
	now := s.now().UTC()
	k := &Key{ID: uuid.New(), Name: in.Name, Prefix: prefix, Scope: scope, Access: in.Access, CreatedBy: admin.ID, CreatedAt: now}
	err = s.store.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.store.insert(ctx, tx, k, hashOf(token)); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{Subject: audit.APIKey(k.ID), Actor: audit.ActorOf(admin),
			Action: audit.ActionAPIKeyCreated, Details: details(k), At: now})
	})
	if err != nil {
		return nil, "", err
	}
	s.log.Info("API key created", "api_key_id", k.ID, "prefix", k.Prefix, "scope", k.Scope.Kind, "user_id", admin.ID)
	return k, token, nil
}

// details is what the audit trail keeps of a key.
func details(k *Key) audit.APIKeyDetails {
	d := audit.APIKeyDetails{Name: k.Name, Prefix: k.Prefix, Scope: string(k.Scope.Kind), Access: string(k.Access)}
	if k.Scope.Kind == ScopeRep {
		d.RepID = k.Scope.RepID.String()
	}
	return d
}

// List returns every key, working ones first, newest first.
func (s *Service) List(ctx context.Context) ([]Key, error) { return s.store.List(ctx) }

// Reps lists the active sales reps a new key may act as.
func (s *Service) Reps(ctx context.Context) ([]Rep, error) { return s.store.reps(ctx) }

// Revoke stops a key at once: the next request that presents it, on any replica, is
// refused, since every request reads its key from the database. Revoking a revoked key
// changes nothing.
func (s *Service) Revoke(ctx context.Context, admin *models.User, id uuid.UUID) (*Key, error) {
	if !admin.IsAdmin() {
		return nil, apperr.New(apperr.KindForbidden, "Only admins manage API keys.")
	}
	var k *Key
	err := s.store.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		if k, err = s.store.Get(ctx, tx, id); err != nil {
			return err
		}
		now := s.now().UTC()
		changed, err := s.store.revoke(ctx, tx, id, admin.ID, now)
		if err != nil || !changed {
			return err
		}
		k.RevokedAt, k.RevokedBy = &now, &admin.ID
		return audit.Record(ctx, tx, audit.Event{Subject: audit.APIKey(k.ID), Actor: audit.ActorOf(admin),
			Action: audit.ActionAPIKeyRevoked, Details: details(k), At: now})
	})
	if err != nil {
		return nil, err
	}
	s.log.Info("API key revoked", "api_key_id", k.ID, "prefix", k.Prefix, "user_id", admin.ID)
	return k, nil
}

// Authenticate returns who presents token, or ErrUnauthenticated. The key and its rep
// are read from the database on every call, so a revoked key, or one whose rep was
// deactivated, is refused on every replica from the next request on.
func (s *Service) Authenticate(ctx context.Context, token string) (*Principal, error) {
	if !plausible(token) {
		return nil, ErrUnauthenticated
	}
	hash := hashOf(token)
	k, rep, stored, err := s.store.ByHash(ctx, hash)
	if errors.Is(err, models.ErrNotFound) {
		return nil, ErrUnauthenticated
	}
	if err != nil {
		return nil, err
	}
	// The row was found by its hash; comparing again in constant time costs nothing and
	// keeps the check independent of how the index compares.
	if subtle.ConstantTimeCompare(stored, hash) != 1 || k.Revoked() {
		return nil, ErrUnauthenticated
	}
	if k.Scope.Kind == ScopeRep && (rep == nil || !rep.Active || rep.Role != models.RoleSalesRep) {
		return nil, ErrUnauthenticated
	}
	if err := s.store.touch(ctx, k.ID, s.now().UTC()); err != nil {
		s.log.Warn("API key use not recorded", "api_key_id", k.ID, "err", err)
	}
	return &Principal{KeyID: k.ID, Name: k.Name, Prefix: k.Prefix, Scope: k.Scope, Access: k.Access, Rep: rep}, nil
}
