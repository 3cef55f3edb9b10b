package models

import (
	"time"

	"github.com/google/uuid"
)

// Role names what a user may do in the portal.
type Role string

// The portal's roles: admins see and manage everything, sales reps only their own
// merchants, merchant users only the merchants they are members of (with the
// permissions of each membership).
const (
	RoleAdmin    Role = "admin"
	RoleSalesRep Role = "sales_rep"
	RoleMerchant Role = "merchant"
)

// Valid reports whether r is one of the known roles.
func (r Role) Valid() bool { return r == RoleAdmin || r == RoleSalesRep || r == RoleMerchant }

// Staff reports whether r is a role of the reseller's own people (admins and
// sales reps), who work on applications; merchant users are invited from
// their merchant's page instead.
func (r Role) Staff() bool { return r == RoleAdmin || r == RoleSalesRep }

// Label is the role's name as shown to people.
func (r Role) Label() string {
	switch r {
	case RoleAdmin:
		return "Admin"
	case RoleSalesRep:
		return "Sales rep"
	case RoleMerchant:
		return "Merchant user"
	}
	return string(r)
}

// User is a person who signs in to the portal.
type User struct {
	ID                 uuid.UUID `gorm:"type:uuid;primaryKey"`
	Email              string
	Name               string
	Role               Role
	PasswordHash       string
	Active             bool
	MustChangePassword bool
	SessionVersion     int
	// MFASecret is the TOTP secret sealed with the key ring; MFAEnabledAt is
	// set once the user proved they hold it (until then the secret is only
	// offered for enrolment). MFALastStep is the newest accepted time step.
	MFASecret    *string
	MFAEnabledAt *time.Time
	MFALastStep  int64
	// TimeZone is the IANA zone pages show times in ("" shows UTC until
	// the browser tells it at sign-in).
	TimeZone      string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	DeactivatedAt *time.Time
}

// IsAdmin reports whether the user holds the admin role.
func (u *User) IsAdmin() bool { return u != nil && u.Role == RoleAdmin }

// IsStaff reports whether the user is an admin or a sales rep.
func (u *User) IsStaff() bool { return u != nil && u.Role.Staff() }

// IsMerchantUser reports whether the user is a person of a merchant.
func (u *User) IsMerchantUser() bool { return u != nil && u.Role == RoleMerchant }

// MFAEnabled reports whether the user signs in with a second factor.
func (u *User) MFAEnabled() bool { return u != nil && u.MFAEnabledAt != nil }

// DisplayName is the name to show, falling back to the e-mail address.
func (u *User) DisplayName() string {
	if u.Name != "" {
		return u.Name
	}
	return u.Email
}
