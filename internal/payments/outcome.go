package payments

import (
	"errors"
	"strings"

	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// answerOf turns what an upstream call returned into the ledger's Answer:
// the processor's answer, an unknown outcome (checked in the background, never
// repeated by hand) or a refusal (nothing happened upstream).
func (s *Service) answerOf(t *Transaction, ut *upstream.Transaction, err error) Answer {
	if err == nil {
		return answerFromUpstream(t, ut, "")
	}
	if errors.Is(err, upstream.ErrUnknownOutcome) {
		until := t.CreatedAt.Add(s.cfg.CheckGrace)
		return Answer{Status: StatusChecking, CheckUntil: &until,
			Event: Event{Kind: EventUnknown, Message: msgUnknownOutcome}}
	}
	msg := failureWords(t.Kind, err)
	failure, reason := failureReason(err)
	a := Answer{Status: StatusFailed, ResultMessage: msg, Event: Event{Kind: EventFailed, Message: msg},
		Details: map[string]string{"failure": failure, "reason": reason}}
	if errors.Is(err, upstream.ErrAlreadySettled) {
		a.Details["settled"] = "true"
	}
	return a
}

// answerFromUpstream reads the processor's answer. how, when set, says how
// it was learnt ("read back after the answer was lost").
func answerFromUpstream(t *Transaction, ut *upstream.Transaction, how string) Answer {
	a := Answer{
		UniqueTransID: ut.UniqueTransID, UpstreamType: ut.TransactionType, ApprovalCode: ut.ApprovalNumberResult,
		ResultMessage: ut.ResultMessage, AVSCode: ut.AVSResponseCode, CVVCode: ut.CVVResponseCode,
		BatchNumber: ut.BatchNumber, HeldForReview: ut.HeldForReview == "true", ReviewReasons: ut.ReviewReasons,
		BillingName: ut.BillingName,
	}
	if t.Card.Last4 == "" {
		a.Card = cardFromAnswer(ut)
	}
	if c, err := upstream.Amount(ut.AmountProcessed).Cents(); err == nil {
		a.ApprovedCents = &c
	}
	if c, err := upstream.Amount(ut.AmountBalance).Cents(); err == nil {
		a.BalanceCents = &c
	}
	if t.Kind == KindTipAdjust || t.Kind == KindCapture {
		if c, err := upstream.Amount(ut.AmountTipped).Cents(); err == nil {
			a.TipCents = &c
		}
	}
	a.Details = map[string]string{}
	for k, v := range map[string]string{"avsText": ut.AVSResponseText, "cvvText": ut.CVVResponseText,
		"entryMethod": ut.AccountEntryMethod, "achReturnCode": ut.ACHReturnCode} {
		if v != "" {
			a.Details[k] = v
		}
	}
	kind := t.Kind
	if t.Kind == KindVoid && ut.IsRefund() {
		// The 25-minute rule: the processor refunded instead of voiding.
		kind, a.Kind = KindRefund, KindRefund
		a.Details["askedAs"] = "void"
	}
	switch ut.Outcome() {
	case upstream.Declined:
		a.Status = StatusDeclined
		a.Event = Event{Kind: EventDeclined, Message: "Declined: " + ut.ResultMessage}
	case upstream.PartiallyApproved:
		a.Status = StatusPartial
		a.Event = Event{Kind: EventPartial, Message: msgPartial(a)}
	default:
		a.Status = StatusApproved
		a.Event = Event{Kind: approvedEvent(t.Kind, kind), Message: approvedWords(t.Kind, kind, ut)}
	}
	if how != "" {
		a.Event.Message += " (" + how + ")"
	}
	return a
}

// approvedEvent is the timeline entry of an approval of a kind (became:
// what the processor made of it).
func approvedEvent(asked, became Kind) EventKind {
	switch {
	case asked == KindVoid && became == KindRefund:
		return EventVoidBecameRefund
	case became == KindVoid:
		return EventVoided
	case became == KindRefund:
		return EventRefunded
	case became == KindCapture:
		return EventCaptured
	case became == KindTipAdjust:
		return EventTipAdjusted
	case became == KindSaveMethod:
		return EventMethodSaved
	}
	return EventApproved
}

// cardFromAnswer reads the brand and last four of the answer's masked
// account (a saved card, a bank account).
func cardFromAnswer(ut *upstream.Transaction) Card {
	digits := strings.TrimLeft(ut.MaskedAccount, "*Xx")
	c := Card{Brand: brandOfCode(ut.AccountCardType)}
	if len(digits) >= 4 && digitsOnly(digits[len(digits)-4:]) {
		c.Last4 = digits[len(digits)-4:]
	}
	return c
}

// brandOfCode names the answer's card type code.
func brandOfCode(code string) string {
	switch code {
	case "VS":
		return "Visa"
	case "MC":
		return "Mastercard"
	case "AX":
		return "American Express"
	case "DS":
		return "Discover"
	case "JC":
		return "JCB"
	case "DC":
		return "Diners Club"
	case "ACH":
		return "Bank account"
	}
	return code
}
