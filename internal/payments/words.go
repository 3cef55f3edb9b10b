package payments

import (
	"errors"
	"net/http"
	"strings"

	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// What people read: every message of the payments room is worded here once.

const (
	msgSuspended      = "This merchant's payments are suspended. An administrator can lift the suspension."
	msgNoAccount      = "This merchant has no payment account yet: an administrator must enter its payment credentials first."
	msgUnknownOutcome = "No answer from the processor. The portal is checking with the processor whether the payment went through; do not charge again."
	msgNotCharged     = "Not charged: the processor has no record of this payment after every check over the grace period."
	msgReenterCard    = "Re-enter the card number: it is never kept, not even for a moment after the page is sent."
	msgReenterAccount = "Re-enter the account number: it is never kept."
)

func msgNoRight(p Permission) string {
	switch p {
	case PermTakePayments:
		return "You do not have the right to take payments for this merchant."
	case PermCaptureAdjust:
		return "You do not have the right to capture authorizations or adjust tips for this merchant."
	case PermVoid:
		return "You do not have the right to void payments for this merchant."
	case PermRefund:
		return "You do not have the right to refund payments for this merchant."
	case PermSavedMethods:
		return "You do not have the right to manage saved payment methods for this merchant."
	}
	return "You do not have the right to do this for this merchant."
}

func msgPartial(a Answer) string {
	approved, balance := int64(0), int64(0)
	if a.ApprovedCents != nil {
		approved = *a.ApprovedCents
	}
	if a.BalanceCents != nil {
		balance = *a.BalanceCents
	}
	return "Partly approved: " + FormatCents(approved) + " approved, " + FormatCents(balance) + " not covered"
}

// approvedWords describes an approval for the timeline.
func approvedWords(asked, became Kind, ut *upstream.Transaction) string {
	code := ""
	if ut.ApprovalNumberResult != "" {
		code = ", code " + ut.ApprovalNumberResult
	}
	amount := ""
	if c, err := upstream.Amount(ut.AmountProcessed).Cents(); err == nil {
		amount = " " + FormatCents(c)
	}
	switch {
	case asked == KindVoid && became == KindRefund:
		return "The void came more than 25 minutes after the payment, so the processor refunded" + amount + " instead"
	case became == KindVoid:
		return "Voided" + amount
	case became == KindRefund:
		return "Refunded" + amount + code
	case became == KindCapture:
		return "Captured" + amount + code
	case became == KindTipAdjust:
		return "Tip adjusted; the total is now" + amount
	case became == KindSaveMethod:
		return "Saved with the processor"
	case became == KindAuthorization:
		return "Authorized" + amount + code
	}
	return "Approved" + amount + code
}

// failureWords explains a request the processor refused or never got:
// nothing happened upstream.
func failureWords(kind Kind, err error) string {
	var ve *upstream.ValidationError
	if errors.As(err, &ve) {
		return "Not sent: " + ve.Field + " " + ve.Message + "."
	}
	if errors.Is(err, upstream.ErrAlreadySettled) {
		if kind == KindTipAdjust {
			return "The sale has settled: its tip can no longer change."
		}
		return "The payment has already settled, so it cannot be voided: refund it instead."
	}
	if errors.Is(err, upstream.ErrUnauthorized) {
		return "The processor refused this merchant's payment credentials. Nothing was charged; an administrator must check them."
	}
	var ue *upstream.Error
	if errors.As(err, &ue) {
		switch {
		case ue.StatusCode == 0:
			return "The processor could not be reached. Nothing was charged; try again in a moment."
		case ue.StatusCode == http.StatusTooManyRequests:
			return "The processor is busy. Nothing was charged; try again in a minute."
		case ue.StatusCode >= 500:
			return "The processor had a problem. Nothing was charged; try again in a moment."
		}
		return "The processor refused this: " + strings.TrimSuffix(ue.Message, ".") + ". Nothing was charged."
	}
	return "The request could not be sent. Nothing was charged."
}

// The two kinds of failure a failed line's details keep ("failure"): the
// processor answered and refused, or the request did not go through.
const (
	failureRefused = "refused"
	failureFailed  = "failed"
)

// failureReason sorts a request that did nothing upstream into refused or
// failed, with its reason in a few words for the history ("already settled").
func failureReason(err error) (failure, reason string) {
	var ve *upstream.ValidationError
	var ue *upstream.Error
	switch {
	case errors.As(err, &ve):
		return failureRefused, ve.Field + " " + ve.Message
	case errors.Is(err, upstream.ErrAlreadySettled):
		return failureRefused, "already settled"
	case errors.Is(err, upstream.ErrUnauthorized):
		return failureRefused, "the merchant's payment credentials were not accepted"
	case !errors.As(err, &ue):
		return failureFailed, "the request could not be sent"
	case ue.StatusCode == 0:
		return failureFailed, "the processor could not be reached"
	case ue.StatusCode == http.StatusTooManyRequests:
		return failureFailed, "the processor was busy"
	case ue.StatusCode >= 500:
		return failureFailed, "the processor had a problem"
	}
	return failureRefused, strings.TrimSuffix(ue.Message, ".")
}

// statusWords name the statuses whose words depend on nothing else.
var statusWords = map[Status]string{
	StatusPending:    "Processing",
	StatusChecking:   "Checking with the processor",
	StatusDeclined:   "Declined",
	StatusFailed:     "Not sent",
	StatusNotCharged: "Not charged",
	StatusVoided:     "Voided",
	StatusCancelled:  "Cancelled",
}

// StatusLabel names where a transaction stands, in words.
func (t *Transaction) StatusLabel() string {
	switch t.Status {
	case StatusApproved:
		return t.approvedLabel()
	case StatusPartial:
		return withRefunded("Partly approved", t.RefundedCents)
	case StatusCaptured:
		return withRefunded("Captured", t.RefundedCents)
	}
	if words, ok := statusWords[t.Status]; ok {
		return words
	}
	return string(t.Status)
}

// approvedLabel names an approved transaction by what it is and what became of it.
func (t *Transaction) approvedLabel() string {
	switch {
	case t.Kind == KindAuthorization:
		return "Authorized"
	case t.Kind == KindRefund:
		return "Refunded"
	case t.Kind == KindSaveMethod:
		return "Saved"
	case t.RefundedCents > 0 && t.RefundedCents >= t.ApprovedCents:
		return "Refunded"
	case t.RefundedCents > 0:
		return "Partly refunded"
	}
	return "Approved"
}

// withRefunded adds what was refunded, if anything, to a status's words.
func withRefunded(words string, refundedCents int64) string {
	if refundedCents > 0 {
		return words + ", refunded " + FormatCents(refundedCents)
	}
	return words
}

// StatusTone is the colour class of the status badge: ok, warn, bad, info.
func (t *Transaction) StatusTone() string {
	switch t.Status {
	case StatusApproved, StatusCaptured:
		return "ok"
	case StatusPartial, StatusChecking, StatusPending:
		return "warn"
	case StatusDeclined, StatusFailed:
		return "bad"
	}
	return "info"
}

// KindLabel names what the transaction is, with where it ran.
func (t *Transaction) KindLabel() string {
	label := map[Kind]string{KindSale: "Sale", KindAuthorization: "Authorization", KindCapture: "Capture",
		KindRefund: "Refund", KindVoid: "Void", KindTipAdjust: "Tip adjustment", KindSaveMethod: "Saved method"}[t.Kind]
	switch t.Source {
	case SourceACH:
		return "ACH " + strings.ToLower(label)
	case SourceTerminal:
		return "Terminal " + strings.ToLower(label)
	}
	return label
}

// KindWords is KindLabel in the middle of a sentence: "sale", "ACH refund".
func (t *Transaction) KindWords() string {
	label := t.KindLabel()
	if strings.HasPrefix(label, "ACH ") {
		return label
	}
	return strings.ToLower(label)
}

// StatusOptions are the list filter's statuses, in words.
var StatusOptions = []struct{ Value, Label string }{
	{string(StatusApproved), "Approved or authorized"}, {string(StatusPartial), "Partly approved"},
	{string(StatusCaptured), "Captured"}, {string(StatusVoided), "Voided"},
	{StatusFilterRefunded, "Refunded"}, {StatusFilterPartlyRefunded, "Partly refunded"},
	{string(StatusDeclined), "Declined"}, {string(StatusChecking), "Checking with the processor"},
	{string(StatusPending), "Processing"}, {string(StatusFailed), "Not sent"},
	{string(StatusNotCharged), "Not charged"}, {string(StatusCancelled), "Cancelled"},
}

// KindOptions are the list filter's types, in words.
var KindOptions = []struct{ Value, Label string }{
	{string(KindSale), "Sales"}, {string(KindAuthorization), "Authorizations"}, {string(KindRefund), "Refunds"},
	{string(KindSaveMethod), "Saved methods"},
}
