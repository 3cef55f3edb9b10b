// Package payments is the merchants' payments room: the virtual terminal (keyed
// card sales, authorizations and captures, ACH debits, payments with a saved
// card or bank account, tips), the one "Reverse" action (void while possible,
// else a linked refund), customers with their saved methods and consents,
// receipts by e-mail, and THE LEDGER: one list of every transaction a
// merchant runs upstream, whether from the virtual terminal or from a card
// terminal (package terminals records its transactions here too).
//
// Never twice: every upstream write starts as an intent row committed before
// the call, whose id is the externalTransactionId and the idempotency key, so a
// double click, a resubmitted form, a timeout or a crash of the portal ends in
// one upstream transaction; an unknown outcome is resolved in the background
// by reading the transaction back (checker.go), never by a second charge.
//
// PCI: a card number or security code lives only in the request, in the typed
// card values of internal/upstream/payments, which print masked. The ledger
// keeps brand, first six and last four at most; nothing of a card reaches the
// database, a log line, a job's arguments, an e-mail or an audit entry.
//
// Files: ledger*.go (the ledger API other rooms use, its store, list, batches,
// export), service*.go (the use cases), checker.go (resolving unknown
// outcomes), customers.go and methods.go, receipts.go, forms*.go and
// handlers*.go (the pages), words.go (what people read).
package payments
