package audit

import "strings"

// The words of card terminal entries (their rows are in sentences.go).

// terminalAct is what a launch of a kind does: the verb in the infinitive
// and the past, and its object ("a sale of $5.00").
func terminalAct(t TerminalDetails) (do, did, object string) {
	of := prefixed(" of ", t.Amount)
	switch t.Kind {
	case "sale":
		return "take", "took", "a sale" + of
	case "token_sale":
		return "take", "took", "a sale" + of + " with a saved card"
	case "return":
		return "make", "made", "a return" + of
	case "void":
		return "void", "voided", "a sale" + of
	case "save_card":
		return "save", "saved", "a card"
	case "tip":
		object = "the tip"
		if t.Tip != "" {
			object += " to " + t.Tip
		}
		if t.Amount != "" {
			object += " (a total of " + t.Amount + ")"
		}
		return "set", "set", object
	}
	return "run", "ran", "a transaction" + of
}

// where says which terminal, and the launch's reference and reason.
func (t TerminalDetails) where() string {
	text := prefixed(" on terminal ", t.Device)
	text += prefixed(" (reference ", t.Reference)
	if t.Reference != "" {
		text += ")"
	}
	return text + prefixed("; reason: ", t.Reason)
}

// launchWords: "took a sale of $5.00 on terminal Front counter (reference INV-7)".
func launchWords(done bool) func(*entry) string {
	return func(e *entry) string {
		do, did, object := terminalAct(e.t)
		if done {
			return did + " " + object + e.t.where()
		}
		return do + " " + object + e.t.where()
	}
}

// resendWords: "sent again a sale of $5.00 on terminal Front counter, whose
// first outcome was unknown".
func resendWords(done bool) func(*entry) string {
	return func(e *entry) string {
		_, _, object := terminalAct(e.t)
		verb := "send"
		if done {
			verb = "sent"
		}
		return verb + " again " + object + prefixed(" on terminal ", e.t.Device) + ", whose first outcome was unknown"
	}
}

func wordTerminalConfirmed(e *entry) string {
	_, _, object := terminalAct(e.t)
	where := prefixed(" on terminal ", e.t.Device)
	if e.t.Outcome == "" {
		return "said what the terminal showed for " + object + where
	}
	return "said the terminal showed “" + terminalStateWords(e.t.Outcome) + "” for " + object + where
}

// terminalStateWords names what a terminal showed (the terminals room's
// states), never by its code.
func terminalStateWords(state string) string {
	switch state {
	case "timed_out":
		return "timed out"
	case "card_removed":
		return "card removed"
	case "not_sent":
		return "not sent"
	}
	return strings.ReplaceAll(state, "_", " ")
}

func wordTerminalsRefreshed(e *entry) string {
	if e.t.LocationID == "" {
		return "downloaded a location's terminals"
	}
	return "downloaded the terminals of location " + e.t.LocationID
}
