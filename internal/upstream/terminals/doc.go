// Package terminals is the typed client of the upstream terminal cloud API
// (area C of the specification): a location's configuration and device
// list, the launch of a transaction on a named terminal, and the reading of
// its result, with a Poller that follows hundreds of launched transactions
// from one loop. It knows nothing of the portal's domain.
//
// A launch prompts a cardholder on a real device, so the client never
// repeats one unless the cloud certainly did not receive it (the request
// was not fully written, or the cloud answered 429). A launch whose answer
// was lost is reported as ErrOutcomeUnknown: the caller asks the user what
// the terminal showed, and may send the same request again only on the
// user's word, when the terminal's duplicate detection (same
// TransactionRef, amount and card as the previous transaction) answers with
// the previous approval instead of charging twice (Result.Duplicate).
//
// Use:
//
//	c, _ := terminals.New(terminals.Config{BaseURL: cloudURL, Logger: log})
//	loc := terminals.Location{ID: "YZM-5B5-RAC", APIKey: key, TestMode: true}
//	cfg, err := c.Config(ctx, loc)                  // devices of the location
//	l, err := c.Launch(ctx, loc, "COUNTER-S300", terminals.Sale(1250, "INV-42.1", "Ann"))
//	// store l.UniqueTransID and l.At with the payment, then follow it:
//	p, _ := terminals.NewPoller(c, terminals.PollerConfig{MaxInFlight: 32})
//	go p.Run(ctx)
//	p.Watch(terminals.Watch{Location: loc, UniqueTransID: l.UniqueTransID, LaunchedAt: l.At,
//		Done: func(f terminals.Finished) { /* record f.Result or f.Err */ }})
//
// Errors match sentinels with errors.Is: ErrInvalid (not sent), ErrRejected,
// ErrUnauthorized, ErrNotFound, ErrDeviceBusy, ErrUnavailable (nothing
// launched), ErrOutcomeUnknown, ErrNotReady and ErrBudgetExceeded. Tests
// drive the schedules with a ManualClock instead of sleeping.
package terminals
