package merchants

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
)

// Admins enter the credentials the operator's integration specialists hand
// over. Secrets are sealed with the key ring at once and never shown again:
// pages show their last four characters; replacing one rotates it.

// PaymentInput is the payment account form.
type PaymentInput struct {
	OID   string
	Token string
}

// TerminalKeyInput is the terminal cloud API key form.
type TerminalKeyInput struct {
	APIKey string
}

// LocationInput is the form of a terminal location.
type LocationInput struct {
	LocationID string
	Name       string
	TestMode   bool
}

var (
	oidShape      = regexp.MustCompile(`^[A-Za-z0-9._~-]{1,100}$`)
	locationShape = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
)

// secretProblem checks a pasted secret: present, one piece, a sane length.
func secretProblem(v string, minLen, maxLen int, what string) string {
	switch {
	case v == "":
		return "Enter the " + what + "."
	case strings.IndexFunc(v, unicode.IsSpace) >= 0:
		return "The " + what + " has spaces or line breaks in it; paste it again, exactly as given."
	case len(v) < minLen:
		return "This is too short to be the " + what + "; paste the whole of it."
	case len(v) > maxLen:
		return "This is too long to be the " + what + "."
	}
	return ""
}

// Validate checks the payment account form.
func (in PaymentInput) Validate() apperr.FieldErrors {
	errs := apperr.FieldErrors{}
	if !oidShape.MatchString(in.OID) {
		errs.Add("oid", "Enter the account id (oid) as the operator gave it: letters, digits, dots, dashes or underscores.")
	}
	if msg := secretProblem(in.Token, 16, 8192, "bearer token"); msg != "" {
		errs.Add("token", msg)
	}
	return errs
}

// Validate checks the API key form.
func (in TerminalKeyInput) Validate() apperr.FieldErrors {
	errs := apperr.FieldErrors{}
	if msg := secretProblem(in.APIKey, 8, 512, "API key"); msg != "" {
		errs.Add("api_key", msg)
	}
	return errs
}

// Validate checks the location form.
func (in LocationInput) Validate() apperr.FieldErrors {
	errs := apperr.FieldErrors{}
	if !locationShape.MatchString(in.LocationID) {
		errs.Add("location_id", "Enter the location id as the operator gave it (for example YZM-5B5-RAC).")
	}
	if in.Name == "" || len(in.Name) > 100 {
		errs.Add("location_name", "Give the location a name people recognise, up to 100 characters.")
	}
	return errs
}

// adminMerchant loads a merchant for an admin-only change.
func (s *Service) adminMerchant(ctx context.Context, u *models.User, id uuid.UUID) (*Merchant, error) {
	m, v, err := s.Visible(ctx, u, id)
	if err != nil {
		return nil, err
	}
	if !v.Admin {
		return nil, errAdminOnly
	}
	return m, nil
}

// SetPaymentAccount enters or replaces a merchant's payment account (admins).
func (s *Service) SetPaymentAccount(ctx context.Context, u *models.User, id uuid.UUID, in PaymentInput) error {
	in.OID, in.Token = strings.TrimSpace(in.OID), strings.TrimSpace(in.Token)
	m, err := s.adminMerchant(ctx, u, id)
	if err != nil {
		return err
	}
	if err := in.Validate().Err(); err != nil {
		return err
	}
	sealed, err := s.seal(m.ID, aadPaymentToken, in.Token)
	if err != nil {
		return err
	}
	now := s.now()
	return s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := s.d.Store.putPaymentAccount(ctx, tx, m.ID, in.OID, sealed, last4(in.Token), SourceAdmin, &u.ID, now, false); err != nil {
			return err
		}
		return s.recordSet(ctx, tx, m.ID, u, areaPayments, SourceAdmin, now)
	})
}

// SetTerminalKey enters or replaces a merchant's terminal cloud API key
// (admins).
func (s *Service) SetTerminalKey(ctx context.Context, u *models.User, id uuid.UUID, in TerminalKeyInput) error {
	in.APIKey = strings.TrimSpace(in.APIKey)
	m, err := s.adminMerchant(ctx, u, id)
	if err != nil {
		return err
	}
	if err := in.Validate().Err(); err != nil {
		return err
	}
	sealed, err := s.seal(m.ID, aadTerminalKey, in.APIKey)
	if err != nil {
		return err
	}
	now := s.now()
	return s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := s.d.Store.putTerminalAccount(ctx, tx, m.ID, sealed, last4(in.APIKey), SourceAdmin, &u.ID, now, false); err != nil {
			return err
		}
		return s.recordSet(ctx, tx, m.ID, u, areaTerminals, SourceAdmin, now)
	})
}

// recordSet writes the audit entry of a credential entered or handed over.
func (s *Service) recordSet(ctx context.Context, tx pgx.Tx, id uuid.UUID, u *models.User, area, source string, now time.Time) error {
	return audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(id), Actor: audit.ActorOf(u), Action: audit.ActionCredentialsSet,
		Details: audit.Details{Area: area, Source: source}, At: now})
}

// AddLocation adds a terminal location (admins).
func (s *Service) AddLocation(ctx context.Context, u *models.User, id uuid.UUID, in LocationInput) error {
	in.LocationID, in.Name = strings.TrimSpace(in.LocationID), strings.TrimSpace(in.Name)
	m, err := s.adminMerchant(ctx, u, id)
	if err != nil {
		return err
	}
	if err := in.Validate().Err(); err != nil {
		return err
	}
	now := s.now()
	return s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
		err := s.d.Store.addLocation(ctx, tx, Location{ID: uuid.New(), MerchantID: m.ID, LocationID: in.LocationID, Name: in.Name, TestMode: in.TestMode, CreatedAt: now})
		if errors.Is(err, errLocationTaken) {
			return apperr.Invalid("location_id", "This merchant has this location already.")
		}
		if err != nil {
			return err
		}
		return s.recordLocation(ctx, tx, m.ID, u, audit.ActionLocationAdded, in, now)
	})
}

// UpdateLocation renames a location or changes its test mode (admins).
func (s *Service) UpdateLocation(ctx context.Context, u *models.User, id, locID uuid.UUID, in LocationInput) error {
	in.Name = strings.TrimSpace(in.Name)
	m, err := s.adminMerchant(ctx, u, id)
	if err != nil {
		return err
	}
	l, err := s.d.Store.location(ctx, nil, m.ID, locID)
	if err != nil {
		return err
	}
	in.LocationID = l.LocationID
	if err := in.Validate().Err(); err != nil {
		return err
	}
	now := s.now()
	return s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.d.Store.updateLocation(ctx, tx, m.ID, locID, in.Name, in.TestMode, now); err != nil {
			return err
		}
		return s.recordLocation(ctx, tx, m.ID, u, audit.ActionLocationChanged, in, now)
	})
}

// RemoveLocation retires a location (admins).
func (s *Service) RemoveLocation(ctx context.Context, u *models.User, id, locID uuid.UUID) error {
	m, err := s.adminMerchant(ctx, u, id)
	if err != nil {
		return err
	}
	l, err := s.d.Store.location(ctx, nil, m.ID, locID)
	if err != nil {
		return err
	}
	now := s.now()
	return s.d.Store.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.d.Store.removeLocation(ctx, tx, m.ID, locID, now); err != nil {
			return err
		}
		return s.recordLocation(ctx, tx, m.ID, u, audit.ActionLocationRemoved, LocationInput{LocationID: l.LocationID, Name: l.Name}, now)
	})
}

func (s *Service) recordLocation(ctx context.Context, tx pgx.Tx, id uuid.UUID, u *models.User, action string, in LocationInput, now time.Time) error {
	label := in.Name + " (" + in.LocationID + ")"
	if action != audit.ActionLocationRemoved {
		if in.TestMode {
			label += ", test mode"
		} else {
			label += ", live"
		}
	}
	return audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(id), Actor: audit.ActorOf(u), Action: action,
		Details: audit.Details{Location: label}, At: now})
}
