package applications

import (
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/states"
)

// StatusLabel names a status for people, from the one state table
// (internal/states); an unknown status shows as itself.
func StatusLabel(s models.ApplicationStatus) string { return states.Portal(s).Label }

// UpstreamStatuses are the application states the upstream publishes, in the
// order of its lifecycle.
var UpstreamStatuses = states.UpstreamCodes()

// ValidUpstreamStatus reports whether s is a published upstream state.
func ValidUpstreamStatus(s string) bool { return states.IsUpstream(s) }

// UpstreamStatusLabel words an upstream state for people, from the state
// table; unknown states show as sent.
func UpstreamStatusLabel(status string) string { return states.Upstream(status).Label }

// State is where an application stands, leading with the outcome (see
// states.Of).
func State(a *models.Application) states.State { return states.Of(a.Status, a.UpstreamStatus) }
