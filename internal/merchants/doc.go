// Package merchants holds the boarded merchants: the merchant the portal
// creates when the upstream boards an application (FollowStatus, hooked into
// the status webhooks), its page and list, its payment account (area B: oid
// and bearer token) and terminal cloud account and locations (area C: API key,
// locations, test mode), sealed with the key ring and shown masked, "test
// connection" against the upstream, their hand-over by the sandbox in sandbox
// mode (a River job), its users (role merchant) with their permissions from
// the one list (Permissions), the MFA policy that follows from them,
// suspension, and the alert when the upstream declines or withdraws a boarded
// merchant.
//
// The payments and terminals rooms build on it through a small API:
// Service.Visible loads a merchant a user may see, Service.Authorize checks a
// permission of a user on a merchant and returns the merchant with its
// decrypted credentials for the upstream clients, and Merchant.CanTransact
// says whether an admin suspended it. See ARCHITECTURE.md.
package merchants
