// Package submission sends a complete application to the processor: the submit use
// case (checklist, pricing code and sealed snapshot, one transaction with the job),
// the push worker (start, data, documents, link) and its reconciler, the mapping of a
// draft to the upstream's data, the document proxy to presigned URLs, the progress
// and "what was sent" views, and the one wording of upstream failures (words.go).
//
// It needs the workspace's readiness checklist, which it declares as Readiness, and
// calls the hand-off to e-mail the merchant at the end of a push.
package submission
