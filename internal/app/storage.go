package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/documents"
)

// documentStorage opens the store chosen by PORTAL_STORAGE and returns the
// limits of an upload. Local storage spools uploads under its own folder
// (in a dot-named directory that no storage key can reach), so a large
// upload is staged on the same disk rather than in a RAM-backed /tmp.
func documentStorage(ctx context.Context, cfg config.StorageConfig) (documents.Storage, documents.Limits, error) {
	limits := documents.Limits{MaxBytes: cfg.MaxUploadBytes}
	switch cfg.Driver {
	case "s3":
		store, err := documents.NewS3Storage(ctx, documents.S3Config{
			Endpoint: cfg.S3Endpoint, Region: cfg.S3Region, Bucket: cfg.S3Bucket,
			AccessKeyID: cfg.S3AccessKeyID, SecretAccessKey: cfg.S3SecretKey,
			UsePathStyle: cfg.S3UsePathStyle, ServerSideEncryption: cfg.S3ServerSideEnc,
		})
		if err != nil {
			return nil, limits, fmt.Errorf("document storage: %w", err)
		}
		return store, limits, nil
	default:
		store, err := documents.NewLocalStorage(cfg.LocalDir)
		if err != nil {
			return nil, limits, fmt.Errorf("document storage: %w", err)
		}
		limits.SpoolDir = filepath.Join(cfg.LocalDir, ".spool")
		if err := os.MkdirAll(limits.SpoolDir, 0o700); err != nil {
			return nil, limits, fmt.Errorf("document storage: %w", err)
		}
		return store, limits, nil
	}
}
