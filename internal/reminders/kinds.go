package reminders

import (
	"time"

	"github.com/payportal/portal/internal/models"
)

// Kind is a kind of reminder.
type Kind string

// The kinds of reminder, in the order the admin page lists them.
const (
	// KindNotOpened reminds a merchant who has not started at the processor: the
	// upstream has not reported inProgress since the link was e-mailed. The portal's own
	// tracked click does not count, since link scanners click too.
	KindNotOpened Kind = "not_opened"
	// KindNotAccepted reminds a merchant who started (inProgress) but has not accepted
	// (processing).
	KindNotAccepted Kind = "not_accepted"
	// KindProcessingPending tells the rep that the processor needs more information.
	KindProcessingPending Kind = "processing_pending"
	// KindStaleDrafts lists drafts left untouched in the owner's weekly digest.
	KindStaleDrafts Kind = "stale_drafts"
)

// Kinds lists the kinds in the order pages show them.
func Kinds() []Kind {
	return []Kind{KindNotOpened, KindNotAccepted, KindProcessingPending, KindStaleDrafts}
}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool {
	for _, known := range Kinds() {
		if k == known {
			return true
		}
	}
	return false
}

// Title names the kind for people.
func (k Kind) Title() string {
	switch k {
	case KindNotOpened:
		return "Merchant has not started"
	case KindNotAccepted:
		return "Merchant started but has not accepted"
	case KindProcessingPending:
		return "Processor needs more information"
	case KindStaleDrafts:
		return "Drafts left untouched"
	}
	return string(k)
}

// Explain says when the kind applies and who gets it.
func (k Kind) Explain() string {
	switch k {
	case KindNotOpened:
		return "E-mails the merchant their link again when the processor has not reported them starting (in progress), counted from the hand-off e-mail."
	case KindNotAccepted:
		return "E-mails the merchant their link again when they started at the processor but have not accepted, counted from when they started."
	case KindProcessingPending:
		return "E-mails the owning rep when the processor puts the application on hold for more information; 0 days sends it at once."
	case KindStaleDrafts:
		return "Lists each draft not changed for this many days in its owner's weekly digest e-mail."
	}
	return ""
}

// ToMerchant reports whether the kind e-mails the merchant (else the rep).
func (k Kind) ToMerchant() bool { return k == KindNotOpened || k == KindNotAccepted }

// state is the SQL of the state a kind applies in (on applications a) and of the
// moment that state began, which names the series of reminders it calls for; Applies
// is the same rule in Go, for the application's page. The tests hold them together.
type state struct {
	cond, episode string
}

var kindStates = map[Kind]state{
	KindNotOpened:         {`a.status = 'linked' AND a.linked_at IS NOT NULL AND COALESCE(a.upstream_status, 'requested') IN ('initiated', 'requested')`, `a.linked_at`},
	KindNotAccepted:       {`a.status = 'linked' AND a.upstream_status = 'inProgress' AND a.upstream_status_at IS NOT NULL`, `a.upstream_status_at`},
	KindProcessingPending: {`a.status = 'linked' AND a.upstream_status = 'processingPending' AND a.upstream_status_at IS NOT NULL`, `a.upstream_status_at`},
	KindStaleDrafts:       {`a.status IN ('draft', 'needs_attention')`, `a.updated_at`},
}

// Applies returns the kind of reminder an application's current state calls for and
// when that state began; false when none does (the merchant accepted, the processor
// decided, or the application is being submitted).
func Applies(a *models.Application) (Kind, time.Time, bool) {
	switch a.Status {
	case models.StatusDraft, models.StatusNeedsAttention:
		return KindStaleDrafts, a.UpdatedAt, true
	case models.StatusLinked:
	default:
		return "", time.Time{}, false
	}
	upstream := "requested"
	if a.UpstreamStatus != nil {
		upstream = *a.UpstreamStatus
	}
	switch {
	case (upstream == "initiated" || upstream == "requested") && a.LinkedAt != nil:
		return KindNotOpened, *a.LinkedAt, true
	case upstream == "inProgress" && a.UpstreamStatusAt != nil:
		return KindNotAccepted, *a.UpstreamStatusAt, true
	case upstream == "processingPending" && a.UpstreamStatusAt != nil:
		return KindProcessingPending, *a.UpstreamStatusAt, true
	}
	return "", time.Time{}, false
}
