package merchants

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
)

// People of the merchant are users of the role merchant, invited by e-mail
// (the one-time link of staff invitations) by an admin or the owning rep,
// who choose their permissions. Nothing is granted by default: a permission
// is held only when ticked. One person may belong to several merchants.

// MemberInput is the form that invites a person or changes their permissions.
type MemberInput struct {
	Email       string
	Name        string
	Permissions Permissions
}

// InviteResult says what inviting did.
type InviteResult struct {
	User *models.User
	// Invited: a one-time link to choose a password was e-mailed; otherwise
	// the person had one already and was told of their new access.
	Invited bool
}

// Members lists the people of a merchant (admins and the owning rep).
func (s *Service) Members(ctx context.Context, u *models.User, id uuid.UUID) ([]Member, error) {
	if _, err := s.staffMerchant(ctx, u, id); err != nil {
		return nil, err
	}
	return s.d.Store.members(ctx, nil, id)
}

// Invite gives a person access to a merchant with the chosen permissions:
// a new person becomes a merchant user with an e-mailed one-time link; a
// merchant user of another merchant is told of the new access (or sent a
// fresh link, if they never used theirs).
func (s *Service) Invite(ctx context.Context, u *models.User, id uuid.UUID, in MemberInput) (*InviteResult, error) {
	in.Email, in.Name = strings.TrimSpace(in.Email), strings.TrimSpace(in.Name)
	m, err := s.staffMerchant(ctx, u, id)
	if err != nil {
		return nil, err
	}
	if err := in.Permissions.check(); err != nil {
		return nil, err
	}
	in.Permissions = in.Permissions.normalized()
	existing, err := s.d.Auth.Users().ByEmail(ctx, in.Email)
	switch {
	case err == nil && !existing.IsMerchantUser():
		return nil, apperr.Invalid("email", "This address belongs to one of the reseller's own users; a merchant user needs an address of their own.")
	case err == nil && !existing.Active:
		return nil, apperr.Invalid("email", "This person's account is deactivated; an admin can reactivate it at Users.")
	case err == nil:
		return s.addExisting(ctx, u, m, existing, in.Permissions)
	case !errors.Is(err, models.ErrNotFound):
		return nil, err
	}
	// The account, its invitation, the membership, the audit entries and the e-mail
	// commit together: a merchant user never exists without the access they were
	// invited to.
	invitee, _, _, err := s.d.Auth.InviteMerchantUser(ctx, u, in.Email, in.Name,
		func(tx database.Tx, invitee *models.User, token string, expires time.Time) error {
			if _, err := s.d.Store.addMember(ctx, tx, m.ID, invitee.ID, in.Permissions, u.ID, s.now()); err != nil {
				return err
			}
			if err := s.recordMember(ctx, tx, m.ID, u, audit.ActionMemberInvited, invitee, in.Permissions); err != nil {
				return err
			}
			return s.mailInvitation(ctx, tx, u, invitee, m, token, expires)
		})
	if err != nil {
		return nil, err
	}
	return &InviteResult{User: invitee, Invited: true}, nil
}

// addExisting gives an existing merchant user access to another merchant. A
// person who never chose a password gets a fresh link, issued in the transaction
// of the membership, its audit entry and the e-mail that carries it.
func (s *Service) addExisting(ctx context.Context, u *models.User, m *Merchant, person *models.User, perms Permissions) (*InviteResult, error) {
	accepted, err := s.d.Auth.InvitationAccepted(ctx, person.ID)
	if err != nil {
		return nil, err
	}
	if accepted {
		err = s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
			if err := s.addMembership(ctx, tx, u, m, person, perms); err != nil {
				return err
			}
			return s.mailAccess(ctx, tx, u, person, m)
		})
	} else {
		_, _, err = s.d.Auth.ReInvite(ctx, u, person, func(tx database.Tx, _ *models.User, token string, expires time.Time) error {
			if err := s.addMembership(ctx, tx, u, m, person, perms); err != nil {
				return err
			}
			return s.mailInvitation(ctx, tx, u, person, m, token, expires)
		})
	}
	if err != nil {
		return nil, err
	}
	if perms.NeedMFA() && !person.MFAEnabled() {
		// Signed in without a second factor: the next sign-in sets it up.
		if err := s.d.Auth.EndSessions(ctx, person.ID); err != nil {
			return nil, err
		}
	}
	return &InviteResult{User: person, Invited: !accepted}, nil
}

// addMembership makes an existing person a member of m, recorded, inside tx; a
// member already is told to change their permissions instead.
func (s *Service) addMembership(ctx context.Context, tx pgx.Tx, u *models.User, m *Merchant, person *models.User, perms Permissions) error {
	added, err := s.d.Store.addMember(ctx, tx, m.ID, person.ID, perms, u.ID, s.now())
	if err != nil {
		return err
	}
	if !added {
		return apperr.Invalid("email", "This person is a member of the merchant already; change their permissions below.")
	}
	return s.recordMember(ctx, tx, m.ID, u, audit.ActionMemberInvited, person, perms)
}

// SetPermissions replaces a member's permissions. Granting one that moves
// money to someone without two-step sign-in ends their sessions, so that
// their next sign-in sets it up.
func (s *Service) SetPermissions(ctx context.Context, u *models.User, id, userID uuid.UUID, perms Permissions) error {
	m, err := s.staffMerchant(ctx, u, id)
	if err != nil {
		return err
	}
	if err := perms.check(); err != nil {
		return err
	}
	perms = perms.normalized()
	person, err := s.member(ctx, m.ID, userID)
	if err != nil {
		return err
	}
	err = s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.d.Store.setPermissions(ctx, tx, m.ID, userID, perms, s.now()); err != nil {
			return err
		}
		return s.recordMember(ctx, tx, m.ID, u, audit.ActionPermissionsChanged, person, perms)
	})
	if err != nil {
		return err
	}
	if perms.NeedMFA() && !person.MFAEnabled() {
		return s.d.Auth.EndSessions(ctx, userID)
	}
	return nil
}

// RemoveMember ends a person's access to the merchant, at their next
// request.
func (s *Service) RemoveMember(ctx context.Context, u *models.User, id, userID uuid.UUID) error {
	m, err := s.staffMerchant(ctx, u, id)
	if err != nil {
		return err
	}
	person, err := s.member(ctx, m.ID, userID)
	if err != nil {
		return err
	}
	return s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.d.Store.removeMember(ctx, tx, m.ID, userID); err != nil {
			return err
		}
		return s.recordMember(ctx, tx, m.ID, u, audit.ActionMemberRemoved, person, nil)
	})
}

// member loads a member of the merchant as a user; 404 for anyone else.
func (s *Service) member(ctx context.Context, merchantID, userID uuid.UUID) (*models.User, error) {
	if _, err := s.d.Store.membership(ctx, nil, merchantID, userID); err != nil {
		return nil, err
	}
	return s.d.Auth.Users().ByID(ctx, userID)
}

func (s *Service) recordMember(ctx context.Context, tx pgx.Tx, id uuid.UUID, u *models.User, action string, person *models.User, perms Permissions) error {
	d := audit.Details{MemberID: person.ID.String(), MemberName: person.DisplayName()}
	if action != audit.ActionMemberRemoved {
		d.Permissions = perms.Labels()
	}
	return audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(id), Actor: audit.ActorOf(u), Action: action, Details: d, At: s.now()})
}

// mailInvitation e-mails the one-time link, through the outbox.
func (s *Service) mailInvitation(ctx context.Context, tx pgx.Tx, inviter, invitee *models.User, m *Merchant, token string, expires time.Time) error {
	link, err := mail.SecretLinkOf(s.d.PublicURL, "invite", token)
	if err != nil {
		return err
	}
	content, err := mail.InvitationEmail(mail.InvitationData{
		ResellerName: s.d.ResellerName, Name: invitee.Name, InviterName: inviter.DisplayName(), MerchantName: m.Name,
		Link: link, Expires: mail.When(expires, invitee.TimeZone, inviter.TimeZone),
	})
	if err != nil {
		return err
	}
	by := inviter.ID
	_, err = s.d.Outbox.Enqueue(ctx, tx, mail.Message{Kind: mail.KindInvitation, To: invitee.Email, ToName: invitee.Name,
		ReplyTo: inviter.Email, Content: content, CreatedBy: &by})
	return err
}

// mailAccess tells a merchant user of their access to one more merchant.
func (s *Service) mailAccess(ctx context.Context, tx pgx.Tx, inviter, person *models.User, m *Merchant) error {
	content, err := mail.NoticeEmail(mail.NoticeData{
		ResellerName: s.d.ResellerName, Name: person.Name,
		Subject:    "You now have access to " + m.Name,
		Paragraphs: []string{inviter.DisplayName() + " gave you access to " + m.Name + " in the " + s.d.ResellerName + " portal. Sign in with your usual e-mail address and password, then choose the merchant."},
		Link:       s.d.PublicURL.JoinPath("login").String(), LinkText: "Sign in",
	})
	if err != nil {
		return err
	}
	by := inviter.ID
	_, err = s.d.Outbox.Enqueue(ctx, tx, mail.Message{Kind: mail.KindMerchantAccess, To: person.Email, ToName: person.Name,
		ReplyTo: inviter.Email, Content: content, CreatedBy: &by})
	return err
}
