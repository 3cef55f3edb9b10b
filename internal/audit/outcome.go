package audit

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// AttemptOutcome is what became of an attempt the trail records (a payment, a void,
// a terminal transaction): the entry is written when the attempt starts, and
// the answer comes later, so the history asks for it when it is read.
type AttemptOutcome string

// The outcomes of an attempt. The zero AttemptOutcome is an attempt whose answer the
// history was not told: it is worded as asked, never as done.
const (
	// OutcomeDone: it happened (approved, voided, saved).
	OutcomeDone AttemptOutcome = "done"
	// OutcomePending: sent, its answer not in yet.
	OutcomePending AttemptOutcome = "pending"
	// OutcomeUnknown: no answer came; the portal is checking with the processor.
	OutcomeUnknown AttemptOutcome = "unknown"
	// OutcomeDeclined: the processor answered no (a declined card).
	OutcomeDeclined AttemptOutcome = "declined"
	// OutcomeRefused: the processor refused the request; nothing happened.
	OutcomeRefused AttemptOutcome = "refused"
	// OutcomeFailed: it did not go through (not reached, not charged).
	OutcomeFailed AttemptOutcome = "failed"
	// OutcomeCancelled: cancelled before the processor acted (at a terminal).
	OutcomeCancelled AttemptOutcome = "cancelled"
)

// AllOutcomes lists every outcome, the zero one first, for the tests that
// word every kind of entry in each.
func AllOutcomes() []AttemptOutcome {
	return []AttemptOutcome{"", OutcomeDone, OutcomePending, OutcomeUnknown, OutcomeDeclined, OutcomeRefused, OutcomeFailed, OutcomeCancelled}
}

// Result is what became of one attempt.
type Result struct {
	Outcome AttemptOutcome
	// Reason says why it did not happen, in a few words ("already settled").
	Reason string
	// Instead says what the processor did in its place ("refunded $5.00
	// instead, as the void came too late").
	Instead string
}

// Outcomes finds what became of the attempts a trail records, by the id of
// the transaction each concerns (the payments ledger's lines, which terminal
// launches share). An id it does not know is left out of the map.
type Outcomes interface {
	Outcomes(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]Result, error)
}

// attemptWords words an attempt whose outcome is not done, from what was
// tried in the infinitive ("void a sale of $5.00").
func attemptWords(tried string, r Result) string {
	switch r.Outcome {
	case OutcomePending:
		return "asked the processor to " + tried + "; its answer has not come yet"
	case OutcomeUnknown:
		return "tried to " + tried + " — the outcome is not known yet: the portal is checking with the processor"
	case OutcomeDeclined:
		return "tried to " + tried + " — declined" + because(r.Reason)
	case OutcomeRefused:
		return "tried to " + tried + " — the processor refused" + because(r.Reason)
	case OutcomeFailed:
		return "tried to " + tried + " — it did not go through" + because(r.Reason)
	case OutcomeCancelled:
		return "tried to " + tried + " — cancelled before it went through" + because(r.Reason)
	}
	return "asked the processor to " + tried
}

// because appends a reason after a colon, as the middle of a sentence: its
// first letter lower case (unless it starts an abbreviation) and no full stop.
func because(reason string) string {
	reason = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(reason), "."))
	if reason == "" {
		return ""
	}
	return ": " + midSentence(reason)
}

// saying appends what a person wrote after a colon, as they wrote it, without
// a final full stop.
func saying(words string) string {
	words = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(words), "."))
	if words == "" {
		return ""
	}
	return ": " + words
}

// midSentence lower-cases the first letter of s unless its first word is an
// abbreviation ("ACH", "AVS") or a name the sentence should keep.
func midSentence(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if len(first) > 1 && strings.ToUpper(first) == first {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[size:]
}

// article puts "a" or "an" before a noun phrase, by its sound: "an ACH sale",
// "a sale", "an authorization".
func article(noun string) string {
	if noun == "" {
		return ""
	}
	first, _, _ := strings.Cut(noun, " ")
	if len(first) > 1 && strings.ToUpper(first) == first {
		// An abbreviation is read letter by letter: "an ACH", "an MCC", "a PDF".
		if strings.ContainsRune("AEFHILMNORSX", rune(first[0])) {
			return "an " + noun
		}
		return "a " + noun
	}
	lower := strings.ToLower(first)
	switch {
	case strings.HasPrefix(lower, "uni"), strings.HasPrefix(lower, "use"), strings.HasPrefix(lower, "usu"):
		return "a " + noun
	case strings.ContainsRune("aeiou", rune(lower[0])):
		return "an " + noun
	}
	return "a " + noun
}
