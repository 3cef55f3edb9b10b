package handoff

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/validation"
)

// StatusEvent is one status change announced by the upstream.
type StatusEvent struct {
	UpstreamApplicationID string
	Status                string
	Created               time.Time // when the upstream says the change happened
}

// StatusOutcome says what recording an event did.
type StatusOutcome int

// Outcomes of UpstreamStatusRecorder.Record.
const (
	// StatusApplied: the event is the newest known and now shows on the application.
	StatusApplied StatusOutcome = iota + 1
	// StatusStale: recorded, but a newer event already shows (out-of-order delivery).
	StatusStale
	// StatusRepeat: the same event was received before; nothing changed.
	StatusRepeat
	// StatusUnmatched: recorded, but no application carries the upstream id, and none is
	// being started upstream: a surprise worth a warning.
	StatusUnmatched
	// StatusEarly: recorded before its application's upstream id was stored, which is
	// expected: the processor announces "initiated" while it answers the portal's start,
	// before the push stores the id. ApplyRecorded applies it then.
	StatusEarly
)

// UpstreamStatusRecorder keeps the upstream's status events and shows the
// newest on each application.
type UpstreamStatusRecorder struct {
	apps      *applications.Store
	now       func() time.Time
	followers []StatusFollower
	// announcer hears of every state newly shown (AnnounceTo); nil: no one.
	announcer StatusAnnouncer
}

// StatusFollower is told of each status event the first time it is recorded
// for an application, newest or not (an out-of-order event too), inside the
// transaction that records it: the one place where later rooms act on the
// upstream's news (the merchants room creates a merchant at boarding). A
// repeat of an event is never passed on.
// created is when the upstream says the change happened. (Plain arguments,
// so that a follower need not import this room.)
type StatusFollower interface {
	FollowStatus(ctx context.Context, tx pgx.Tx, applicationID uuid.UUID, status string, created time.Time) error
}

// NewUpstreamStatusRecorder returns a recorder that shows statuses through
// apps and passes each new event to the followers.
func NewUpstreamStatusRecorder(apps *applications.Store, now func() time.Time, followers ...StatusFollower) *UpstreamStatusRecorder {
	return &UpstreamStatusRecorder{apps: apps, now: now, followers: followers}
}

// Record stores ev once. A repeat changes nothing; an event older than the one
// shown is kept in the history and the audit trail but does not regress the
// application's status. Events for an upstream id no application carries yet
// are kept, and ApplyRecorded applies them once it is stored.
func (r *UpstreamStatusRecorder) Record(ctx context.Context, ev StatusEvent) (StatusOutcome, error) {
	var outcome StatusOutcome
	err := r.apps.InTx(ctx, func(tx pgx.Tx) error {
		if err := LockUpstreamID(ctx, tx, ev.UpstreamApplicationID); err != nil {
			return err
		}
		var appID *uuid.UUID
		err := tx.QueryRow(ctx, `INSERT INTO upstream_status_events (upstream_application_id, application_id, status, created_upstream, received_at)
			VALUES ($1, (SELECT id FROM applications WHERE upstream_application_id = $1), $2, $3, $4)
			ON CONFLICT (upstream_application_id, status, created_upstream) DO NOTHING
			RETURNING application_id`, ev.UpstreamApplicationID, ev.Status, ev.Created, r.now()).Scan(&appID)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			outcome = StatusRepeat
			return nil
		case err != nil:
			return fmt.Errorf("record upstream status: %w", err)
		case appID == nil:
			outcome, err = r.unmatched(ctx, tx)
			return err
		}
		applied, err := r.apply(ctx, tx, *appID, ev.Status, ev.Created, r.now())
		if applied {
			outcome = StatusApplied
		} else {
			outcome = StatusStale
		}
		return err
	})
	return outcome, err
}

// LockUpstreamID takes, until tx ends, the lock that orders recording a status event of an
// upstream application against storing that id on its application: an event recorded
// while the push stores the id is then either attached by ApplyRecorded or, taking the
// lock after it, finds the id stored (each statement of READ COMMITTED reads what was
// committed when it starts). Take it before storing the id, and before anything else that
// locks the application's row.
func LockUpstreamID(ctx context.Context, tx pgx.Tx, upstreamID string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('upstream-application:' || $1, 0))`, upstreamID); err != nil {
		return fmt.Errorf("lock upstream application %s: %w", upstreamID, err)
	}
	return nil
}

// unmatched sorts an event no application carries: early when an application is being
// pushed and has no upstream id yet (its start may be the one announced), else unmatched.
func (r *UpstreamStatusRecorder) unmatched(ctx context.Context, tx pgx.Tx) (StatusOutcome, error) {
	var starting bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM applications
		WHERE status = 'submitting' AND upstream_application_id IS NULL AND deleted_at IS NULL)`).Scan(&starting)
	if err != nil {
		return 0, fmt.Errorf("look for an application being started: %w", err)
	}
	if starting {
		return StatusEarly, nil
	}
	return StatusUnmatched, nil
}

// ApplyRecorded attaches the status events that arrived before the
// application's upstream id was stored, and shows the newest of them. Call it
// inside the transaction that stores upstream_application_id.
func (r *UpstreamStatusRecorder) ApplyRecorded(ctx context.Context, tx pgx.Tx, applicationID uuid.UUID, upstreamID string, now time.Time) error {
	rows, err := tx.Query(ctx, `UPDATE upstream_status_events SET application_id = $1
		WHERE upstream_application_id = $2 AND application_id IS NULL
		RETURNING status, created_upstream`, applicationID, upstreamID)
	if err != nil {
		return fmt.Errorf("attach upstream status events: %w", err)
	}
	type pending struct {
		status  string
		created time.Time
	}
	var events []pending
	for rows.Next() {
		var p pending
		if err := rows.Scan(&p.status, &p.created); err != nil {
			rows.Close()
			return err
		}
		events = append(events, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// Oldest first, so that each is applied only if newer than the last.
	slices.SortFunc(events, func(a, b pending) int { return a.created.Compare(b.created) })
	for _, e := range events {
		if _, err := r.apply(ctx, tx, applicationID, e.status, e.created, now); err != nil {
			return err
		}
	}
	return nil
}

// apply shows status on the application when it is newer than the one shown,
// and writes the audit entry either way.
func (r *UpstreamStatusRecorder) apply(ctx context.Context, tx pgx.Tx, appID uuid.UUID, status string, created, now time.Time) (bool, error) {
	applied, err := r.apps.ShowUpstreamStatus(ctx, tx, appID, status, created)
	if err != nil {
		return false, err
	}
	err = audit.Record(ctx, tx, audit.Event{Subject: audit.Application(appID), Action: audit.ActionUpstreamStatus,
		Details: map[string]any{"status": status, "created": created.UTC().Format(time.RFC3339Nano), "applied": applied}, At: now})
	if err != nil {
		return applied, err
	}
	for _, f := range r.followers {
		if err := f.FollowStatus(ctx, tx, appID, status, created); err != nil {
			return applied, err
		}
	}
	if applied && r.announcer != nil {
		return applied, r.announcer.StatusShown(ctx, tx, appID, status)
	}
	return applied, nil
}

// maxWebhookBody bounds a webhook request; the real ones are about 150 bytes.
const maxWebhookBody = 16 << 10

// webhookBody is the upstream's published webhook JSON.
type webhookBody struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Created int64  `json:"created"` // epoch milliseconds
	Token   string `json:"token"`
}

// WebhookHandler receives the upstream's status webhooks at POST /webhooks/upstream.
type WebhookHandler struct {
	recorder *UpstreamStatusRecorder
	// tokenHash is the SHA-256 of the expected token, or nil when none is
	// configured and every request is refused.
	tokenHash []byte
	log       *slog.Logger
	// refused is told why each refused webhook was refused (CountRefusals).
	refused func(reason string)
}

// Why a webhook was refused, as CountRefusals' hook is told.
const (
	RefusedToken     = "token"     // a wrong or missing token, or none configured
	RefusedMalformed = "malformed" // not one JSON object of the published shape
	RefusedInvalid   = "invalid"   // a field out of its bounds, an unknown status
)

// CountRefusals has refused called with the reason of every webhook refused (the alert
// signals count them: a wrong token is an attack or a misconfiguration, either way the
// upstream's news is not arriving).
func (h *WebhookHandler) CountRefusals(refused func(reason string)) { h.refused = refused }

func (h *WebhookHandler) refuse(reason string) {
	if h.refused != nil {
		h.refused(reason)
	}
}

// NewWebhookHandler returns the handler; with an empty token it refuses every
// request, since an unchecked endpoint would let anyone set statuses.
func NewWebhookHandler(recorder *UpstreamStatusRecorder, token string, log *slog.Logger) *WebhookHandler {
	h := &WebhookHandler{recorder: recorder, log: log}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		h.tokenHash = sum[:]
	}
	return h
}

// Receive checks the token, validates the event and records it. It answers 204
// for every accepted event, whether or not an application carries the id, so
// the answer tells nothing about which applications exist; 401 for a wrong or
// missing token (nothing is recorded); 400 for a malformed event.
func (h *WebhookHandler) Receive(c echo.Context) error {
	body, err := decodeWebhook(http.MaxBytesReader(c.Response(), c.Request().Body, maxWebhookBody))
	if err != nil {
		h.refuse(RefusedMalformed)
		return echo.NewHTTPError(http.StatusBadRequest, "The body must be the JSON object {id, status, created, token}.")
	}
	if !h.tokenMatches(body.Token) {
		h.refuse(RefusedToken)
		if h.tokenHash == nil {
			h.log.Warn("upstream webhook refused: PORTAL_UPSTREAM_WEBHOOK_TOKEN is not configured")
		} else {
			h.log.Warn("upstream webhook refused: wrong token")
		}
		return echo.NewHTTPError(http.StatusUnauthorized)
	}
	ev, err := body.event()
	if err != nil {
		h.refuse(RefusedInvalid)
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	outcome, err := h.recorder.Record(c.Request().Context(), ev)
	if err != nil {
		return err
	}
	args := []any{"upstream_application_id", ev.UpstreamApplicationID, "status", ev.Status, "outcome", outcome.String()}
	switch outcome {
	case StatusEarly:
		h.log.Debug("upstream status webhook before its application's id is stored; applied when it is", args...)
	case StatusUnmatched:
		h.log.Warn("upstream status webhook for an application the portal does not know", args...)
	default:
		h.log.Info("upstream status webhook", args...)
	}
	return c.NoContent(http.StatusNoContent)
}

// decodeWebhook reads one webhook body: a single JSON object of the published shape.
func decodeWebhook(r io.Reader) (webhookBody, error) {
	var body webhookBody
	dec := json.NewDecoder(r)
	if err := dec.Decode(&body); err != nil {
		return webhookBody{}, err
	}
	return body, nil
}

// Bounds of a webhook's fields: the id is the upstream's UUID text (a little room for
// another shape), created a time Postgres and Go both hold (epoch milliseconds from 2000
// to the end of 9999).
const (
	maxUpstreamIDLength = 200
	earliestCreated     = 946_684_800_000     // 2000-01-01T00:00:00Z
	latestCreated       = 253_402_300_799_999 // 9999-12-31T23:59:59.999Z
)

// errWebhookField refuses a webhook whose fields are out of their bounds; its message is the
// answer's.
type errWebhookField string

func (e errWebhookField) Error() string { return string(e) }

// event checks a decoded body's fields and returns the event it announces.
func (b webhookBody) event() (StatusEvent, error) {
	id := strings.TrimSpace(b.ID)
	switch {
	case id == "" || b.Created == 0:
		return StatusEvent{}, errWebhookField("id and created (epoch milliseconds) are required.")
	case len(id) > maxUpstreamIDLength || !validation.IsText(id):
		return StatusEvent{}, errWebhookField("id must be the upstream's application id: one line of text, at most 200 characters.")
	case b.Created < earliestCreated || b.Created > latestCreated:
		return StatusEvent{}, errWebhookField("created must be epoch milliseconds between the years 2000 and 9999.")
	case !applications.ValidUpstreamStatus(b.Status):
		return StatusEvent{}, errWebhookField("Unknown status.")
	}
	return StatusEvent{UpstreamApplicationID: id, Status: b.Status, Created: time.UnixMilli(b.Created).UTC()}, nil
}

func (h *WebhookHandler) tokenMatches(token string) bool {
	if h.tokenHash == nil || token == "" {
		return false
	}
	// Comparing fixed-length digests keeps the time independent of the
	// token's length as well as its content.
	sum := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(sum[:], h.tokenHash) == 1
}

// String names the outcome for logs.
func (o StatusOutcome) String() string {
	switch o {
	case StatusApplied:
		return "applied"
	case StatusStale:
		return "stale"
	case StatusRepeat:
		return "repeat"
	case StatusUnmatched:
		return "unmatched"
	case StatusEarly:
		return "early"
	}
	return "unknown"
}
