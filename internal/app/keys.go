package app

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"time"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/imports"
	"github.com/payportal/portal/internal/keys"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/partnerapi"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/webhooks"
)

// SealedColumns is the one registry of the database's columns holding values sealed with
// the key ring, as each room declares its own: `portal keys status`, `rotate` and
// `verify`, the start-up check and the tests that scan the schema all read it. A room
// that seals a new column adds it to its SealedColumns (or adds its SealedColumns here);
// the test that scans every column for ciphertext fails until it does.
func SealedColumns() []keys.Column {
	return slices.Concat(
		applications.SealedColumns(),
		mail.SealedColumns(),
		auth.SealedColumns(),
		merchants.SealedColumns(),
		payments.SealedColumns(),
		imports.SealedColumns(),
		partnerapi.SealedColumns(),
		webhooks.SealedColumns(),
	)
}

// NewKeys builds the key ring's service on an open database, as `portal keys` runs it:
// the ring and the document store from the configuration, and the registry.
func NewKeys(ctx context.Context, cfg *config.Config, db *database.DB, log *slog.Logger) (*keys.Service, error) {
	sealed, err := openSealing(ctx, cfg, db, log, time.Now)
	if err != nil {
		return nil, err
	}
	return sealed.keys, nil
}

// sealing is the key ring and what the wiring seals with it outside the rooms: the
// documents, encrypted at rest wherever they are stored, and the key ring's service over
// the registry.
type sealing struct {
	ring    *fieldcrypt.KeyRing
	storage *documents.EncryptedStorage
	limits  documents.Limits
	docs    *documents.Store
	keys    *keys.Service
}

func openSealing(ctx context.Context, cfg *config.Config, db *database.DB, log *slog.Logger, now func() time.Time) (*sealing, error) {
	ring, err := fieldcrypt.ParseKeyRing(cfg.EncryptionActiveKey, cfg.EncryptionKeys)
	if err != nil {
		return nil, fmt.Errorf("PORTAL_ENCRYPTION_KEYS: %w", err)
	}
	plainStorage, limits, err := documentStorage(ctx, cfg.Storage)
	if err != nil {
		return nil, err
	}
	s := &sealing{ring: ring, storage: documents.NewEncryptedStorage(plainStorage, ring, limits.SpoolDir), limits: limits,
		docs: documents.NewStore(db)}
	files := []keys.Files{documents.NewSealedFiles(s.docs, s.storage, log)}
	if cfg.Upstream.Mode == "sandbox" && cfg.Sandbox.DataDir != "" {
		files = append(files, sandboxKeyFiles{path: filepath.Join(cfg.Sandbox.DataDir, sandboxKeyFile), ring: ring})
	}
	s.keys = keys.New(keys.Deps{Pool: db.Pool, Ring: ring, Columns: SealedColumns(), Files: files, Now: now})
	return s, nil
}
