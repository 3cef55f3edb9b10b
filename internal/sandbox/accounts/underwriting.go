package accounts

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// testCase is one row of the underwriting test data: what an application
// whose legal entity TIN is TIN, or whose DBA or legal name contains Words
// (any case), gets from the back office after the underwriting delay.
type testCase struct {
	TIN     string
	Words   string
	Outcome Status // boarded, declined, processingPending; "" for no automatic decision
	Request *PendingRequest
}

// underwritingTests is the documented test data (README: Underwriting),
// checked in order; anything else is boarded.
var underwritingTests = []testCase{
	{TIN: "222222222", Words: "decline", Outcome: StatusDeclined},
	{TIN: "333333333", Words: "needs document", Outcome: StatusProcessingPending, Request: &PendingRequest{
		Kind: "document", FileType: "voidedCheck",
		Message: "We could not verify the deposit account. Send a voided check (or a letter from the bank) for the account you gave.",
	}},
	{TIN: "444444444", Words: "needs detail", Outcome: StatusProcessingPending, Request: &PendingRequest{
		Kind:    "detail",
		Message: "We could not reach the business at the phone number given. Confirm or correct the business phone number and address.",
	}},
	{TIN: "555555555", Words: "manual review", Outcome: ""},
}

// digitsOnly drops everything but digits, so "22-2222222" matches too.
func digitsOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// testOutcome reads the test data of an application: the row that applies
// and why, or nil for the default (boarded).
func testOutcome(data map[string]any) (*testCase, string) {
	tin, _ := getPath(data, "legalEntity.tin")
	tinText, _ := tin.(string)
	var names []string
	for _, p := range []string{"business.dba", "legalEntity.name"} {
		if v, ok := getPath(data, p); ok {
			if s, _ := v.(string); s != "" {
				names = append(names, strings.ToLower(s))
			}
		}
	}
	for i := range underwritingTests {
		tc := &underwritingTests[i]
		if digitsOnly(tinText) == tc.TIN {
			return tc, "test TIN " + tc.TIN
		}
		for _, n := range names {
			if strings.Contains(n, tc.Words) {
				return tc, fmt.Sprintf("test name containing %q", tc.Words)
			}
		}
	}
	return nil, "no test data: approved"
}

// scheduleDecision plans the back office's decision on an accepted
// application, after the underwriting delay, unless automatic underwriting
// is off or the test data asks for manual review.
func (s *Server) scheduleDecision(c *change, a *appRecord, resumed bool) error {
	a.Underwriting = nil
	if s.opts.UnderwritingDelay < 0 {
		return nil
	}
	outcome, reason := StatusBoarded, "more information received: approved"
	if !resumed {
		tc, why := testOutcome(a.values())
		reason = why
		if tc != nil {
			if tc.Outcome == "" {
				return nil
			}
			outcome = tc.Outcome
		}
	}
	due := c.now.Add(s.opts.UnderwritingDelay)
	a.Underwriting = &Decision{Outcome: outcome, Due: due, Reason: reason}
	return putDue(c, due, dueDecision, a.ID)
}

// cancelDecision drops a planned decision, when the admin moves the
// application by hand.
func cancelDecision(c *change, a *appRecord) error {
	if a.Underwriting == nil {
		return nil
	}
	err := deleteDue(c.tx, a.Underwriting.Due, dueDecision, a.ID)
	a.Underwriting = nil
	return err
}

// decide makes a planned decision whose time has come.
func (s *Server) decide(item dueItem) error {
	return s.update(func(c *change) error {
		// The back office decided at the due time, even when a manual clock
		// jumped past it.
		c.now = item.at
		if err := deleteDue(c.tx, item.at, dueDecision, item.id); err != nil {
			return err
		}
		a, err := loadApp(c.tx, item.id)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		d := a.Underwriting
		if d == nil || !d.Due.Equal(item.at) || a.Status != StatusProcessing {
			return nil // moved by hand meanwhile
		}
		a.Underwriting = nil
		if d.Outcome == StatusProcessingPending {
			tc, _ := testOutcome(a.values())
			req := PendingRequest{Kind: "detail", Message: "We need more information about the business."}
			if tc != nil && tc.Request != nil {
				req = *tc.Request
			}
			req.At = c.now
			a.Pending = &req
		}
		if err := s.setStatus(c, a, d.Outcome, "underwriting"); err != nil {
			return err
		}
		return saveApp(c.tx, a)
	})
}

// resume answers the back office's request for more information: the
// application goes back to processing and is decided after the delay.
func (s *Server) resume(c *change, a *appRecord, by string) error {
	a.Pending = nil
	if err := s.setStatus(c, a, StatusProcessing, by); err != nil {
		return err
	}
	return s.scheduleDecision(c, a, true)
}

// Decline moves an application to declined, as an underwriter would.
func (s *Server) Decline(id string) error { return s.SetStatus(id, StatusDeclined) }

// Board moves an accepted application to boarded.
func (s *Server) Board(id string) error { return s.SetStatus(id, StatusBoarded) }

// SetStatus moves an application as the operator's back office would, by
// hand: only the moves of AdminMoves are allowed. A planned automatic
// decision is dropped; a move to processingPending asks for more
// information with a general message.
func (s *Server) SetStatus(id string, st Status) error {
	return s.SetStatusWithMessage(id, st, "")
}

// SetStatusWithMessage is SetStatus with the message of the request for
// more information, when st is processingPending.
func (s *Server) SetStatusWithMessage(id string, st Status, message string) error {
	if !slices.Contains(statuses, st) {
		return fmt.Errorf("%w: %q is not a published state", ErrTransition, st)
	}
	return s.update(func(c *change) error {
		a, err := loadApp(c.tx, id)
		if err != nil {
			return err
		}
		if !slices.Contains(adminMoves[a.Status], st) {
			return fmt.Errorf("%w: an application in state %s cannot move to %s by hand (allowed: %s)",
				ErrTransition, a.Status, st, movesText(a.Status))
		}
		if err := cancelDecision(c, a); err != nil {
			return err
		}
		a.Pending = nil
		if st == StatusProcessingPending {
			if strings.TrimSpace(message) == "" {
				message = "We need more information about the business. Confirm or correct the details on the application pages."
			}
			a.Pending = &PendingRequest{Kind: "detail", Message: message, At: c.now}
		}
		if err := s.setStatus(c, a, st, "admin"); err != nil {
			return err
		}
		return saveApp(c.tx, a)
	})
}

func movesText(st Status) string {
	moves := adminMoves[st]
	if len(moves) == 0 {
		return "none: the state is final"
	}
	out := make([]string, len(moves))
	for i, m := range moves {
		out[i] = string(m)
	}
	return strings.Join(out, ", ")
}

// UnderwritingDelay returns the delay of automatic decisions; negative
// when they are off.
func (s *Server) UnderwritingDelay() time.Duration { return s.opts.UnderwritingDelay }
