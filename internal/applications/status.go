package applications

import (
	"slices"

	"github.com/payportal/portal/internal/models"
)

// statusLabels name the portal's statuses for people, in the order filters offer them.
var statusLabels = []struct {
	status models.ApplicationStatus
	label  string
}{
	{models.StatusDraft, "Draft"},
	{models.StatusSubmitting, "Submitting"},
	{models.StatusNeedsAttention, "Needs attention"},
	{models.StatusLinked, "Sent to merchant"},
}

// StatusLabel names a status for people; an unknown status shows as itself.
func StatusLabel(s models.ApplicationStatus) string {
	for _, l := range statusLabels {
		if l.status == s {
			return l.label
		}
	}
	return string(s)
}

// UpstreamStatuses are the application states the upstream publishes, in the
// order of its lifecycle.
var UpstreamStatuses = []string{
	"initiated", "requested", "inProgress", "processing", "processingPending",
	"withdrawn", "declined", "boarded", "installed", "active",
}

// ValidUpstreamStatus reports whether s is a published upstream state.
func ValidUpstreamStatus(s string) bool { return slices.Contains(UpstreamStatuses, s) }

// upstreamStatusLabels words the upstream's application states for reps.
var upstreamStatusLabels = map[string]string{
	"initiated":         "Started",
	"requested":         "Link created, waiting for the merchant",
	"inProgress":        "The merchant is completing it",
	"processing":        "Accepted by the merchant; in review",
	"processingPending": "In review, waiting for more information",
	"withdrawn":         "Withdrawn",
	"declined":          "Declined",
	"boarded":           "Approved and boarded",
	"installed":         "Installed",
	"active":            "Active",
}

// UpstreamStatusLabel words an upstream state for people; unknown states show as sent.
func UpstreamStatusLabel(status string) string {
	if l, ok := upstreamStatusLabels[status]; ok {
		return l
	}
	return status
}

// Statuses lists the portal's statuses in the order filters offer them.
func Statuses() []models.ApplicationStatus {
	out := make([]models.ApplicationStatus, len(statusLabels))
	for i, l := range statusLabels {
		out[i] = l.status
	}
	return out
}
