package terminals

// Kill ends a process's following as a SIGKILL would: no lease released.
func Kill(s *Service) {
	f := s.follow
	f.mu.Lock()
	if !f.running {
		f.mu.Unlock()
		return
	}
	f.running = false
	cancel, done := f.cancel, f.done
	f.mu.Unlock()
	cancel()
	<-done
}

// KindRule is a row of launchRules, as the tests read it.
type KindRule struct {
	Original, Amount, Reason, Consent bool
	// Runs is "chosen", "sale's device" or "sale's location"; Refs "typed"
	// or "sale's".
	Runs, Refs string
}

// LaunchRules returns the decision table of plan, row by row.
func LaunchRules() map[Kind]KindRule {
	out := map[Kind]KindRule{}
	for k, r := range launchRules {
		out[k] = KindRule{Original: r.original, Amount: r.amount, Reason: r.reason, Consent: r.consent,
			Runs: [...]string{"chosen", "sale's device", "sale's location"}[r.runs], Refs: [...]string{"typed", "sale's"}[r.refs]}
	}
	return out
}

// RunsOn is where a launch of kind runs, given the form's location and
// device and the sale it acts on.
func RunsOn(kind Kind, locID, device string, sale *Launch) (string, string) {
	return launchRules[kind].runs.where(locID, device, sale)
}

// MayLaunch is Access.mayLaunch, for the table of who may launch what.
func MayLaunch(a *Access, kind Kind, amountCents int64, loc Location) error {
	return a.mayLaunch(kind, amountCents, loc)
}

// OriginalProblem is what a launch of kind finds wrong with the approved launch
// o it acts on, given the launches acting on o ("" when nothing).
func OriginalProblem(kind Kind, o *Launch, acting []*Launch) string {
	return originalProblem(kind, o, voidOf(acting))
}
