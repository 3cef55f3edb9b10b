package payments

// SetHook makes a test see the named points of a write ("begun": the
// idempotency key is marked running and the operation is about to run).
func SetHook(a *Area, f func(stage string)) { a.hook = f }
