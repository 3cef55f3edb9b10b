package audit

import (
	"strings"

	"github.com/payportal/portal/internal/states"
)

// The words of a merchant's trail (its rows are in sentences.go).

// credentialArea names what a credentials entry concerns.
func credentialArea(d Details) string {
	switch d.Area {
	case "payments":
		return "the payment account (oid and token)"
	case "terminals":
		return "the terminal cloud API key"
	}
	return "the credentials"
}

func wordCredentialsSet(e *entry) string {
	if e.d.Source == "sandbox" {
		return "fetched " + credentialArea(e.d) + " from the sandbox"
	}
	return "entered " + credentialArea(e.d)
}

func wordCredentialsTested(e *entry) string {
	area := credentialArea(e.d)
	if e.d.Location != "" {
		area += " at location " + e.d.Location
	}
	if e.d.OK != nil && *e.d.OK {
		return "tested " + area + ": it worked"
	}
	return "tested " + area + ": it failed" + because(e.d.Message)
}

// location names a terminal location of an entry.
func location(d Details) string {
	if d.Location == "" {
		return "a terminal location"
	}
	return "terminal location " + d.Location
}

func wordMerchantAlert(e *entry) string {
	if e.d.Status == "" {
		return "recorded news from the processor about this boarded merchant (not applied: an admin decides)"
	}
	return "recorded that the processor now says " + states.Upstream(e.d.Status).Label + " for this boarded merchant (not applied: an admin decides)"
}

func wordAlertResolved(e *entry) string {
	about := "the processor's news"
	if e.d.Status != "" {
		about = "the processor's “" + states.Upstream(e.d.Status).Label + "”"
	}
	return "decided about " + about + saying(e.d.Message)
}

// permissionList joins permissions already worded by the merchants room.
func permissionList(p []string) string {
	if len(p) == 0 {
		return "no permissions"
	}
	return strings.Join(p, ", ")
}
