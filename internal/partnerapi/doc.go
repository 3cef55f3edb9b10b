// Package partnerapi serves the partner API (/api/v1): software vendors create, change
// and submit applications, attach documents, follow the hand-off and read merchants and
// their ledger with an API key instead of a session.
//
// It is a surface like internal/web: its handlers call the same use cases as the pages
// (workspace, documents, submission, handoff, dashboard, merchants, payments), as the
// key's rep or, for a reseller-wide key, with the admins' view for reads and as the
// object's owning rep for writes, so validation, the checklist and authorization exist
// once. Beside them it holds the API's conventions: problem documents (RFC 9457), the
// key and rate-limit check, idempotency keys, ETags and merge patches, and the JSON
// names of the drafts' fields, derived from their registry. The contract is the OpenAPI
// document in contract/; client/ is generated from it.
package partnerapi
