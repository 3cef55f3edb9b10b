package audit

import (
	"encoding/json"
	"strings"
)

// describeTerminalEvent words the terminal entries for a history.
func describeTerminalEvent(r row) (string, bool) {
	var d TerminalDetails
	_ = json.Unmarshal(r.Details, &d)
	what := strings.TrimSpace(strings.Join([]string{terminalKindLabel(d.Kind), d.Amount}, " "))
	on := ""
	if d.Device != "" {
		on = " on terminal " + d.Device
	}
	switch r.Action {
	case ActionTerminalLaunched:
		text := "launched a " + what + on
		if d.Reference != "" {
			text += " (reference " + d.Reference + ")"
		}
		if d.Reason != "" {
			text += "; reason: " + d.Reason
		}
		return text, true
	case ActionTerminalConfirmed:
		return "said the terminal showed " + d.Outcome + " for the " + what + on, true
	case ActionTerminalResent:
		return "sent the " + what + on + " again, whose outcome was unknown", true
	case ActionTerminalsRefreshed:
		return "downloaded the terminals of location " + d.LocationID, true
	}
	return "", false
}

// terminalKindLabel names a kind of terminal transaction in a sentence.
func terminalKindLabel(kind string) string {
	switch kind {
	case "sale":
		return "sale"
	case "token_sale":
		return "sale with a saved card"
	case "return":
		return "return"
	case "void":
		return "void"
	case "save_card":
		return "save card"
	case "tip":
		return "tip (new total)"
	}
	return "transaction"
}
