// Package kit holds what every area of the sandbox shares: one clock (and
// the Alarm that does an area's due work when the clock reaches it), one
// fault injector, one embedded store, the security headers and admin guard
// of its pages, the layout of its pages and JSON helpers. The area packages
// (accounts, payments, terminals) import it; it imports none of them, and
// nothing of the portal.
package kit
