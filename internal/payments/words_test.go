package payments_test

import (
	"testing"

	"github.com/payportal/portal/internal/payments"
)

// The status a transaction shows, one row per word: an approved payment says what
// became of it (authorized, refunded in full or in part), partly approved and captured
// payments name what was refunded, and a status the portal does not know shows as
// stored.
func TestStatusLabelNamesWhereATransactionStands(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status             payments.Status
		kind               payments.Kind
		approved, refunded int64
		want               string
	}{
		{payments.StatusPending, payments.KindSale, 0, 0, "Processing"},
		{payments.StatusChecking, payments.KindSale, 0, 0, "Checking with the processor"},
		{payments.StatusApproved, payments.KindSale, 1000, 0, "Approved"},
		{payments.StatusApproved, payments.KindAuthorization, 1000, 0, "Authorized"},
		{payments.StatusApproved, payments.KindRefund, 1000, 0, "Refunded"},
		{payments.StatusApproved, payments.KindSaveMethod, 0, 0, "Saved"},
		{payments.StatusApproved, payments.KindSale, 1000, 1000, "Refunded"},
		{payments.StatusApproved, payments.KindSale, 1000, 1500, "Refunded"},
		{payments.StatusApproved, payments.KindSale, 1000, 400, "Partly refunded"},
		{payments.StatusApproved, payments.KindVoid, 1000, 0, "Approved"},
		{payments.StatusPartial, payments.KindSale, 600, 0, "Partly approved"},
		{payments.StatusPartial, payments.KindSale, 600, 250, "Partly approved, refunded $2.50"},
		{payments.StatusDeclined, payments.KindSale, 0, 0, "Declined"},
		{payments.StatusFailed, payments.KindSale, 0, 0, "Not sent"},
		{payments.StatusNotCharged, payments.KindSale, 0, 0, "Not charged"},
		{payments.StatusVoided, payments.KindSale, 0, 0, "Voided"},
		{payments.StatusCaptured, payments.KindAuthorization, 1000, 0, "Captured"},
		{payments.StatusCaptured, payments.KindAuthorization, 1000, 300, "Captured, refunded $3.00"},
		{payments.StatusCancelled, payments.KindSale, 0, 0, "Cancelled"},
		{payments.Status("on_hold"), payments.KindSale, 0, 0, "on_hold"},
	} {
		tx := &payments.Transaction{Status: tt.status, Kind: tt.kind, ApprovedCents: tt.approved, RefundedCents: tt.refunded}
		if got := tx.StatusLabel(); got != tt.want {
			t.Errorf("%s %s, approved %d, refunded %d: %q, want %q", tt.status, tt.kind, tt.approved, tt.refunded, got, tt.want)
		}
	}
}
