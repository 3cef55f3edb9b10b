package audit

import (
	"strings"

	"github.com/payportal/portal/internal/states"
)

// describeMerchantEvent words the entries of a merchant's trail.
func describeMerchantEvent(action string, d Details) (string, bool) {
	area := map[string]string{"payments": "the payment account (oid and token)", "terminals": "the terminal cloud API key"}[d.Area]
	if area == "" {
		area = "the credentials"
	}
	switch action {
	case ActionMerchantBoarded:
		return "recorded that the processor boarded the merchant", true
	case ActionCredentialsSet:
		if d.Source == "sandbox" {
			return "fetched " + area + " from the sandbox", true
		}
		return "entered " + area, true
	case ActionCredentialsTested:
		outcome := "it failed"
		if d.OK != nil && *d.OK {
			outcome = "it worked"
		}
		if d.Location != "" {
			area += " at location " + d.Location
		}
		return "tested " + area + ": " + outcome, true
	case ActionCredentialsFetchFailed:
		return "could not fetch the credentials from the sandbox: " + d.Message, true
	case ActionLocationAdded:
		return "added terminal location " + d.Location, true
	case ActionLocationChanged:
		return "changed terminal location " + d.Location, true
	case ActionLocationRemoved:
		return "removed terminal location " + d.Location, true
	case ActionMemberInvited:
		return "gave " + orSomeone(d.MemberName) + " access: " + permissionList(d.Permissions), true
	case ActionPermissionsChanged:
		return "changed the permissions of " + orSomeone(d.MemberName) + " to: " + permissionList(d.Permissions), true
	case ActionMemberRemoved:
		return "removed " + orSomeone(d.MemberName) + " from the merchant", true
	case ActionMerchantSuspended:
		text := "suspended the merchant's payments and terminals"
		if d.Message != "" {
			text += ": " + d.Message
		}
		return text, true
	case ActionMerchantResumed:
		return "resumed the merchant's payments and terminals", true
	case ActionMerchantAlert:
		return "recorded that the processor now says " + states.Upstream(d.Status).Label + " for this boarded merchant (not applied: an admin decides)", true
	case ActionMerchantAlertResolved:
		return "decided about the processor's " + strings.ToLower(states.Upstream(d.Status).Label) + ": " + d.Message, true
	}
	return "", false
}

// permissionList joins permissions already worded by the merchants room.
func permissionList(p []string) string {
	if len(p) == 0 {
		return "no permissions"
	}
	return strings.Join(p, ", ")
}
