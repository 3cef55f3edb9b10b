package audit

import (
	"strings"
	"testing"
)

// Every account action is worded, and so is every refused attempt that is recorded;
// none falls back to its bare constant.
func TestEveryAccountActionIsWorded(t *testing.T) {
	d := AccountDetails{Role: "Sales rep", FromRole: "Sales rep", ToRole: "Admin", Reason: "wrong code"}
	for _, a := range []string{ActionUserCreated, ActionUserInvited, ActionInvitationResent, ActionInvitationAccepted,
		ActionRoleChanged, ActionUserDeactivated, ActionUserReactivated, ActionPasswordChanged, ActionPasswordReset,
		ActionMFAEnrolled, ActionMFATurnedOff, ActionMFAReset, ActionRecoveryCodesRenewed} {
		if text := describeAccountEvent(a, d, false); text == a || strings.Contains(text, "_") {
			t.Errorf("%s is not worded: %q", a, text)
		}
	}
	for a := range failedAccountWords {
		if text := describeAccountEvent(a, d, true); !strings.HasPrefix(text, "tried to ") || !strings.HasSuffix(text, ": wrong code") {
			t.Errorf("a failed %s reads %q", a, text)
		}
	}
}
