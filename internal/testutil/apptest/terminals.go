package apptest

import (
	terminalsapi "github.com/payportal/portal/internal/upstream/terminals"
)

// WithTerminalsClock makes clock the one clock of the sandbox (with
// WithSandbox) and of the portal's terminal cloud clients and follower, so
// a test moves the emulated cardholder and the portal's polling together
// with clock.Advance, never sleeping for either.
func WithTerminalsClock(clock *terminalsapi.ManualClock) Option {
	return func(s *settings) { s.terminals = clock }
}

// terminalsClock is the terminals clock asked for, or nil (the wall clock).
func (s *settings) terminalsClock() terminalsapi.Clock {
	if s.terminals == nil {
		return nil
	}
	return s.terminals
}
