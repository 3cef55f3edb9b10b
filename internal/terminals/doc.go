// Package terminals is the portal's card-terminal room (issue 18): a
// merchant's locations and the devices the terminal cloud lists for them, a
// health badge built from the portal's own evidence, and transactions
// launched on a chosen device (sale, return, void, save card, sale with a
// saved card, add tip) and followed until their result.
//
// A launch is durable from the click: its row (terminal_launches) is
// committed before the request leaves, one transaction at a time per device
// is a unique index of the database, and one Follower per portal process
// follows every launched transaction with the upstream client's Poller (one
// loop, not a goroutine per transaction). The follower holds a lease on each
// launch it follows, renews it while it lives and takes over the launches
// whose lease ran out, so a restarted or another portal process resumes them
// with their original five-minute budget. A launch whose answer was lost, or
// whose budget ran out, is unknown: the device stays locked until a person
// says what the terminal showed or a slow recheck finds the result; it is
// sent again only on the user's word.
//
// References: the transaction reference is the invoice reference and a
// payment number (INV-42.1, INV-42.2) that grows only when a payment is
// approved, so the terminal's duplicate detection stops a repeat without
// swallowing a second real payment. Tips name the original sale and run on
// its device.
//
// The room reaches merchants (access, permissions, credentials) and the
// payments ledger through the interfaces in access.go, and the cloud through
// internal/upstream/terminals (imported as upstream).
package terminals
