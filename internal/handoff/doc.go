// Package handoff is what happens after the link exists: the e-mail that gives the
// merchant their link, sending it again, the tracking link that records opens, and
// the processor's status webhooks.
package handoff
