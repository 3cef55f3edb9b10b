package reminders

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
)

// digestHour is the hour of the digest's day, in the rep's zone, from which it goes out.
const digestHour = 8

// digestWeek returns the week a digest sent at now belongs to (the date of its Monday in
// loc) and the moment that week's digest is due: weekday at digestHour, in loc. Weeks
// run Monday to Sunday, as ISO weeks do.
func digestWeek(now time.Time, loc *time.Location, weekday time.Weekday) (week time.Time, dueAt time.Time) {
	local := now.In(loc)
	back := (int(local.Weekday()) + 6) % 7 // days since Monday
	y, m, d := local.AddDate(0, 0, -back).Date()
	week = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	offset := (int(weekday) + 6) % 7 // Monday 0 … Sunday 6
	dueAt = time.Date(y, m, d+offset, digestHour, 0, 0, 0, loc)
	return week, dueAt
}

// rep is an owner of drafts due in a digest.
type rep struct {
	ID       uuid.UUID
	Name     string
	Email    string
	TimeZone string
}

// repsWithStaleDrafts lists the active owners of at least one draft due in a digest.
func repsWithStaleDrafts(ctx context.Context, q database.Querier, set Setting, now time.Time) ([]rep, error) {
	st := kindStates[KindStaleDrafts]
	rows, err := q.Query(ctx, `SELECT u.id, u.name, u.email, u.time_zone FROM users u
		WHERE u.active AND EXISTS (SELECT 1 FROM applications a
			WHERE a.owner_id = u.id AND a.deleted_at IS NULL AND `+st.cond+` AND `+notPaused+`
			  AND `+st.episode+` <= $1
			  AND (SELECT count(*) FROM reminders_sent r WHERE r.application_id = a.id AND r.kind = $2 AND r.episode = `+st.episode+`) < $3)
		ORDER BY u.id`, now.Add(-set.After()), string(KindStaleDrafts), set.MaxSends)
	if err != nil {
		return nil, fmt.Errorf("find reps with stale drafts: %w", err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[rep])
	if err != nil {
		return nil, fmt.Errorf("find reps with stale drafts: %w", err)
	}
	return list, nil
}

// runDigests sends this week's digest to every rep whose digest is due and who has
// drafts to list. It returns the drafts listed and the digests that failed.
func (s *Service) runDigests(ctx context.Context, set Setting, now time.Time) (int, int, error) {
	reps, err := repsWithStaleDrafts(ctx, s.d.Apps.Querier(), set, now)
	if err != nil {
		return 0, 0, err
	}
	listed, failed := 0, 0
	for _, r := range reps {
		loc := location(r.TimeZone)
		week, dueAt := digestWeek(now, loc, set.DigestWeekday)
		if now.Before(dueAt) {
			continue
		}
		n, err := s.sendDigest(ctx, set, r, week, loc, now)
		switch {
		case ctx.Err() != nil:
			return listed, failed, ctx.Err()
		case err != nil:
			failed++
			s.d.Log.Warn("weekly digest not sent", "user_id", r.ID, "err", err)
		}
		listed += n
	}
	return listed, failed, nil
}

// sendDigest sends one rep's digest of a week, once: the (rep, week) row is claimed in
// the transaction that queues it. It returns how many drafts it listed.
func (s *Service) sendDigest(ctx context.Context, set Setting, r rep, week time.Time, loc *time.Location, now time.Time) (int, error) {
	// Weekly digests are the cadence: a draft listed last week is due again this week.
	listing := set
	listing.IntervalDays = 0
	var listed int
	err := s.d.Apps.InTx(ctx, func(tx pgx.Tx) error {
		claimed, err := claimWeek(ctx, tx, r.ID, week, now)
		if err != nil || !claimed {
			return err
		}
		dg, err := s.listDue(ctx, tx, listing, r.ID, loc, now)
		if err != nil {
			return err
		}
		if len(dg.items) == 0 {
			return errNothingToList
		}
		if err := s.queueDigest(ctx, tx, set, r, week, dg, now); err != nil {
			return err
		}
		listed = len(dg.items)
		return nil
	})
	if errors.Is(err, errNothingToList) {
		return 0, nil
	}
	if err == nil && listed > 0 {
		s.d.Log.Info("weekly digest sent", "user_id", r.ID, "drafts", listed)
	}
	return listed, err
}

type listedDraft struct {
	app    *models.Application
	number int
}

// digest is what one rep's weekly digest lists: each draft's line, the
// reminder row claimed for it, and the draft with its reminder number.
type digest struct {
	items  []mail.DigestDraft
	rowIDs []int64
	apps   []listedDraft
}

// claimWeek claims the (rep, week) row; false when it was claimed before.
func claimWeek(ctx context.Context, tx pgx.Tx, userID uuid.UUID, week, now time.Time) (bool, error) {
	var claimed bool
	err := tx.QueryRow(ctx, `INSERT INTO reminder_digests (user_id, week, sent_at) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING RETURNING true`, userID, week, now).Scan(&claimed)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim weekly digest: %w", err)
	}
	return true, nil
}

// listDue claims the reminder of each of the rep's stale drafts still due,
// skipping those another run claimed first.
func (s *Service) listDue(ctx context.Context, tx pgx.Tx, listing Setting, userID uuid.UUID, loc *time.Location, now time.Time) (digest, error) {
	var dg digest
	list, err := findDue(ctx, tx, listing, now, userID, uuid.Nil)
	if err != nil {
		return dg, err
	}
	for _, d := range list {
		ok, err := stillDue(ctx, tx, KindStaleDrafts, d.AppID, d.Episode)
		if err != nil {
			return dg, err
		}
		if !ok {
			continue
		}
		rowID, won, err := claim(ctx, tx, KindStaleDrafts, d.AppID, d.Episode, d.Sent+1, now)
		if err != nil {
			return dg, err
		}
		if !won {
			continue
		}
		a, err := s.d.Apps.Get(ctx, tx, d.AppID)
		if err != nil {
			return dg, err
		}
		dg.items = append(dg.items, mail.DigestDraft{Name: merchantName(a, loc), LastChanged: a.UpdatedAt.In(loc).Format("2006-01-02"), Link: s.link(applications.Path(a.ID))})
		dg.rowIDs = append(dg.rowIDs, rowID)
		dg.apps = append(dg.apps, listedDraft{a, d.Sent + 1})
	}
	return dg, nil
}

// queueDigest queues the digest's e-mail in the outbox and records it on
// the week's row, on each draft's reminder and in each draft's history.
func (s *Service) queueDigest(ctx context.Context, tx pgx.Tx, set Setting, r rep, week time.Time, dg digest, now time.Time) error {
	content, err := mail.DigestEmail(mail.DigestData{ResellerName: s.d.ResellerName, RepName: r.Name, StaleDays: set.AfterDays, Drafts: dg.items})
	if err != nil {
		return err
	}
	msg, err := s.d.Outbox.Enqueue(ctx, tx, mail.Message{Kind: mail.KindDigest, To: r.Email, ToName: r.Name, Content: content})
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE reminder_digests SET message_id = $3 WHERE user_id = $1 AND week = $2`, r.ID, week, msg.ID); err != nil {
		return fmt.Errorf("record weekly digest: %w", err)
	}
	if err := setMessage(ctx, tx, dg.rowIDs, msg.ID); err != nil {
		return err
	}
	for _, l := range dg.apps {
		if err := recordSent(ctx, tx, l.app.ID, KindStaleDrafts, l.number, msg.ID, now); err != nil {
			return err
		}
	}
	return nil
}

// location is a user's time zone, or UTC when unset or unknown.
func location(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}
