package merchants

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
)

// An admin can stop a merchant's payments and terminals at once, and decide
// about a decline or withdrawal the upstream reported after boarding.

// Suspend stops every payment and terminal action of the merchant (admins).
// reason is kept and shown.
func (s *Service) Suspend(ctx context.Context, u *models.User, id uuid.UUID, reason string) error {
	reason = strings.TrimSpace(reason)
	if len(reason) > 500 {
		return apperr.Invalid("reason", "Keep the reason under 500 characters.")
	}
	return s.adminChange(ctx, u, id, func(tx pgx.Tx, m *Merchant) error {
		if m.Suspended() {
			return nil
		}
		now := s.now()
		if err := s.d.Store.setSuspended(ctx, tx, m.ID, &u.ID, reason, now); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(m.ID), Actor: audit.ActorOf(u),
			Action: audit.ActionMerchantSuspended, Details: audit.Details{Message: reason}, At: now}); err != nil {
			return err
		}
		m.SuspendedAt, m.SuspendedBy, m.SuspendReason = &now, &u.ID, reason
		return s.announce(ctx, tx, ChangeSuspended, m)
	})
}

// Resume allows the merchant's payments and terminals again (admins).
func (s *Service) Resume(ctx context.Context, u *models.User, id uuid.UUID) error {
	return s.adminChange(ctx, u, id, func(tx pgx.Tx, m *Merchant) error {
		if !m.Suspended() {
			return nil
		}
		if err := s.d.Store.setSuspended(ctx, tx, m.ID, nil, "", s.now()); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(m.ID), Actor: audit.ActorOf(u),
			Action: audit.ActionMerchantResumed, At: s.now()}); err != nil {
			return err
		}
		m.SuspendedAt, m.SuspendedBy, m.SuspendReason = nil, nil, ""
		return s.announce(ctx, tx, ChangeResumed, m)
	})
}

// The decisions an admin can take about an alert.
const (
	DecisionKeep    = "keep"    // payments go on
	DecisionSuspend = "suspend" // payments and terminals stop
)

// ResolveAlert records an admin's decision about a decline or withdrawal
// reported after boarding: keep the merchant going, or suspend it.
func (s *Service) ResolveAlert(ctx context.Context, u *models.User, id uuid.UUID, decision, note string) error {
	return s.adminChange(ctx, u, id, func(tx pgx.Tx, m *Merchant) error {
		// The form is read once the user is known to be an admin.
		words, err := alertDecision(decision, strings.TrimSpace(note))
		if err != nil {
			return err
		}
		if !m.AlertOpen() {
			return apperr.New(apperr.KindConflict, "There is no open alert on this merchant; reload the page.")
		}
		now := s.now()
		if decision == DecisionSuspend && !m.Suspended() {
			reason := "The processor reported it " + *m.AlertStatus
			if err := s.d.Store.setSuspended(ctx, tx, m.ID, &u.ID, reason, now); err != nil {
				return err
			}
			m.SuspendedAt, m.SuspendedBy, m.SuspendReason = &now, &u.ID, reason
			if err := s.announce(ctx, tx, ChangeSuspended, m); err != nil {
				return err
			}
		}
		if err := s.d.Store.resolveAlert(ctx, tx, m.ID, u.ID, words, now); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(m.ID), Actor: audit.ActorOf(u),
			Action: audit.ActionMerchantAlertResolved, Details: audit.Details{Status: *m.AlertStatus, Message: words}, At: now})
	})
}

// adminChange runs an admin's change on the locked merchant.
func (s *Service) adminChange(ctx context.Context, u *models.User, id uuid.UUID, fn func(tx pgx.Tx, m *Merchant) error) error {
	if _, err := s.adminMerchant(ctx, u, id); err != nil {
		return err
	}
	return s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
		m, err := s.d.Store.lock(ctx, tx, id)
		if err != nil {
			return err
		}
		return fn(tx, m)
	})
}

// alertDecision words an admin's decision about an alert, with their note.
func alertDecision(decision, note string) (string, error) {
	var words string
	switch decision {
	case DecisionKeep:
		words = "kept the merchant's payments and terminals going"
	case DecisionSuspend:
		words = "suspended the merchant's payments and terminals"
	default:
		return "", apperr.Invalid("decision", "Choose whether to keep the merchant going or to suspend it.")
	}
	if len(note) > 500 {
		return "", apperr.Invalid("note", "Keep the note under 500 characters.")
	}
	if note != "" {
		words += " (" + note + ")"
	}
	return words, nil
}
