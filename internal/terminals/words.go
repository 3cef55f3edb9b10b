package terminals

import (
	"errors"
	"fmt"
	"strings"

	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// The room's words for what happened, in one place.
const (
	eventAccepted     = "The terminal cloud accepted it; the terminal prompts the cardholder."
	problemSenderLost = "The portal stopped while sending this to the terminal, so it may have reached the terminal."
	problemBudget     = "No result came within five minutes."
	problemAnswerLost = "The terminal cloud's answer was lost on the way, so it may have reached the terminal."
)

// problemOfLaunch words a launch the cloud did not accept.
func problemOfLaunch(err error) string {
	var e *upstream.Error
	msg := ""
	if errors.As(err, &e) && e.Message != "" && e.StatusCode != 0 {
		msg = " The cloud said: " + strings.TrimSpace(e.Message)
	}
	switch {
	case errors.Is(err, upstream.ErrOutcomeUnknown):
		return problemAnswerLost
	case errors.Is(err, upstream.ErrDeviceBusy):
		return "The terminal is busy with another transaction (perhaps one started outside the portal)." + msg
	case errors.Is(err, upstream.ErrUnavailable):
		return "The terminal or the terminal cloud is unavailable: check that the terminal is on and connected." + msg
	case errors.Is(err, upstream.ErrNotFound):
		return "The terminal cloud does not know this location or terminal: refresh the devices." + msg
	case errors.Is(err, upstream.ErrUnauthorized):
		return "The terminal cloud refused the merchant's API key: an admin should check the merchant's terminal credentials."
	case errors.Is(err, upstream.ErrRejected), errors.Is(err, upstream.ErrInvalid):
		return "The terminal cloud refused the request." + msg
	case upstream.IsTemporary(err):
		return "The terminal cloud could not be reached; nothing was sent. Try again in a moment."
	}
	return "The terminal cloud refused the request." + msg
}

// problemOfRead words a result that could not be read.
func problemOfRead(err error) string {
	switch {
	case errors.Is(err, upstream.ErrNotFound):
		return "The terminal cloud no longer knows this transaction."
	case errors.Is(err, upstream.ErrUnauthorized):
		return "The terminal cloud refused the merchant's API key while the result was read."
	case upstream.IsTemporary(err):
		return "The terminal cloud did not answer a result read."
	}
	return "The terminal cloud refused a result read."
}

// eventOfResult is the timeline line of a recorded result.
func eventOfResult(l *Launch) string {
	var b strings.Builder
	b.WriteString(l.State.Label())
	if l.ResultMessage != "" && !strings.EqualFold(l.ResultMessage, string(l.State)) {
		fmt.Fprintf(&b, " (the terminal said %s)", l.ResultMessage)
	}
	if l.ApprovalNumber != "" {
		fmt.Fprintf(&b, ", approval %s", l.ApprovalNumber)
	}
	if c := cardText(l); c != "" {
		b.WriteString(", " + c)
	}
	b.WriteString(".")
	if l.Duplicate {
		b.WriteString(" " + DuplicateText)
	}
	return b.String()
}

// DuplicateText says plainly what a duplicate answer means.
const DuplicateText = "The terminal answered with the approval of the previous identical transaction (same reference, amount and card): the card was not charged again."

// cardText names the card read: "Visa ending 4223".
func cardText(l *Launch) string {
	last4 := l.Last4()
	if last4 == "" {
		return ""
	}
	return BrandName(l.CardBrand) + " ending " + last4
}

// BrandName names a card brand code.
func BrandName(code string) string {
	switch strings.ToUpper(code) {
	case "VS", "VI", "VISA":
		return "Visa"
	case "MC":
		return "Mastercard"
	case "AX", "AMEX":
		return "American Express"
	case "DS", "DISC":
		return "Discover"
	case "":
		return "Card"
	}
	return code
}
