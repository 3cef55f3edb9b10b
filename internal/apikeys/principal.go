package apikeys

import (
	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
)

// ScopeKind says whose objects a key reaches.
type ScopeKind string

// The scopes of a key: one sales rep's objects, or the whole reseller's.
const (
	ScopeRep      ScopeKind = "rep"
	ScopeReseller ScopeKind = "reseller"
)

// Access says whether a key may change anything.
type Access string

// The accesses of a key.
const (
	AccessRead  Access = "read"
	AccessWrite Access = "write"
)

// Label is the access as the admin pages show it.
func (a Access) Label() string {
	if a == AccessWrite {
		return "Read and write"
	}
	return "Read only"
}

// Scope is whose objects a key reaches: RepID's for a rep-scoped key, everyone's for a
// reseller-wide one.
type Scope struct {
	Kind  ScopeKind
	RepID uuid.UUID
}

// RepScope is the scope of a key acting as the sales rep id.
func RepScope(id uuid.UUID) Scope { return Scope{Kind: ScopeRep, RepID: id} }

// ResellerScope is the scope of a reseller-wide key.
func ResellerScope() Scope { return Scope{Kind: ScopeReseller} }

// Covers reports whether an object owned by the sales rep ownerID (an application, a
// merchant, their events) is within the scope.
func (s Scope) Covers(ownerID uuid.UUID) bool {
	switch s.Kind {
	case ScopeReseller:
		return true
	case ScopeRep:
		return s.RepID != uuid.Nil && s.RepID == ownerID
	}
	return false
}

// Principal is who a request of the partner API is: the key, its scope and its access,
// and for a rep-scoped key the rep it acts as.
type Principal struct {
	KeyID uuid.UUID
	// Name is the key's name, as the audit trail shows it.
	Name string
	// Prefix is the key's public part ("ppk_4f7q2m9x"), safe to log.
	Prefix string
	Scope  Scope
	Access Access
	// Rep is the active sales rep a rep-scoped key acts as; nil for a reseller-wide key.
	Rep *models.User
}

// MaySee reports whether the key may see the objects of the sales rep ownerID.
func (p *Principal) MaySee(ownerID uuid.UUID) bool { return p != nil && p.Scope.Covers(ownerID) }

// CanWrite reports whether the key may change anything.
func (p *Principal) CanWrite() bool { return p != nil && p.Access == AccessWrite }

// ResellerWide reports whether the key reaches every rep's objects.
func (p *Principal) ResellerWide() bool { return p != nil && p.Scope.Kind == ScopeReseller }
