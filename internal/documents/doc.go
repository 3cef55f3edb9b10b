// Package documents holds the supporting documents merchants send with an
// application (it was internal/uploads): the catalogue of document types
// (doctypes.go), the checks an upload must pass, the storage that keeps the bytes
// (local disk or S3), the documents table, and the documents section of the
// application page.
//
// It imports no room: the access it needs to the application a document belongs to
// and to its pricing model is declared as interfaces (Applications, PricingModels)
// and given by the wiring. Sending documents to the processor is the submission's
// job (internal/submission/proxy.go); this package records nothing of it but the
// status columns the proxy writes through Store.
package documents
