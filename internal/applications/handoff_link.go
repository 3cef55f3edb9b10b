package applications

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/models"
)

// The hand-off link and the merchant's tracked links are secrets: the upstream's link opens
// the merchant's application at the processor, a tracked link /l/<token> leads to it. At
// rest the first is sealed with the key ring (applications.handoff_link), the second kept
// only as a SHA-256 (handoff_open_tokens): each e-mail to the merchant carries a token of
// its own, which works until OpenTokenLifetime after it was minted.

// OpenTokenLifetime is how long a tracked link works after its e-mail was written.
const OpenTokenLifetime = 90 * 24 * time.Hour

// SealLinks makes the store seal hand-off links with ring. The portal's wiring calls it
// once, before the store is used; without it links are stored as given (tests of rooms
// that never read them).
func (s *Store) SealLinks(ring *fieldcrypt.KeyRing) { s.links = ring }

// linkAAD binds a sealed hand-off link to its application.
func linkAAD(appID uuid.UUID) string { return "application:" + appID.String() + ":handoff_link" }

// sealLink seals a hand-off link for storage.
func (s *Store) sealLink(appID uuid.UUID, link string) (string, error) {
	if s.links == nil || link == "" {
		return link, nil
	}
	return s.links.Encrypt(link, linkAAD(appID))
}

// OpenHandoffLink returns the upstream's hand-off link of a linked application in the
// clear, or "" when it has none. A link stored before links were sealed reads as it is.
func (s *Store) OpenHandoffLink(a *models.Application) (string, error) {
	if a.HandoffLink == nil || *a.HandoffLink == "" {
		return "", nil
	}
	return s.openLink(a.ID, *a.HandoffLink)
}

func (s *Store) openLink(appID uuid.UUID, stored string) (string, error) {
	if s.links == nil || !sealedValue(stored) {
		return stored, nil
	}
	link, err := s.links.Decrypt(stored, linkAAD(appID))
	if err != nil {
		return "", fmt.Errorf("application %s: opening the hand-off link: %w", appID, err)
	}
	return link, nil
}

// sealedValue tells a sealed value ("v1.<key>.<data>") from a link stored in the clear.
func sealedValue(s string) bool { return strings.HasPrefix(s, "v1.") }

// HashOpenToken is how a tracked link's token is kept: the hex SHA-256 of its text.
func HashOpenToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// AddOpenToken keeps a new tracked link's token, as its hash, for an application: every
// e-mail that carries the link mints one, and each works until it expires.
func (s *Store) AddOpenToken(ctx context.Context, q database.Querier, appID uuid.UUID, token string, now time.Time) error {
	_, err := s.On(q).Exec(ctx, `INSERT INTO handoff_open_tokens (token_hash, application_id, created_at, expires_at)
		VALUES ($1, $2, $3, $4)`, HashOpenToken(token), appID, now, now.Add(OpenTokenLifetime))
	if err != nil {
		return fmt.Errorf("keep tracked link: %w", err)
	}
	return nil
}

// SealLegacyLinks seals the hand-off links stored in the clear before links were sealed.
// It runs at start-up; each row is done on its own, so a pass cut short resumes, and once
// none is left it costs one query. It returns how many it sealed.
func (s *Store) SealLegacyLinks(ctx context.Context) (int, error) {
	if s.links == nil {
		return 0, nil
	}
	rows, err := s.Pool.Query(ctx, `SELECT id, handoff_link FROM applications
		WHERE handoff_link IS NOT NULL AND handoff_link <> '' AND handoff_link NOT LIKE 'v1.%'`)
	if err != nil {
		return 0, fmt.Errorf("list hand-off links to seal: %w", err)
	}
	type legacy struct {
		ID   uuid.UUID
		Link string
	}
	todo, err := pgx.CollectRows(rows, pgx.RowToStructByPos[legacy])
	if err != nil {
		return 0, fmt.Errorf("list hand-off links to seal: %w", err)
	}
	for _, l := range todo {
		sealed, err := s.sealLink(l.ID, l.Link)
		if err != nil {
			return 0, err
		}
		if _, err := s.Pool.Exec(ctx, `UPDATE applications SET handoff_link = $2 WHERE id = $1 AND handoff_link = $3`, l.ID, sealed, l.Link); err != nil {
			return 0, fmt.Errorf("seal hand-off link: %w", err)
		}
	}
	return len(todo), nil
}
