package config

import "strings"

// ProcessorConfig says where the merchants' payment and terminal APIs are
// (areas B and C), per environment, and which sandbox, if any, hands over a
// boarded merchant's credentials.
type ProcessorConfig struct {
	// PaymentsBaseURL is the direct payment API's environment URL, ending
	// with /virtualterminal/v1 (PORTAL_PAYMENTS_BASE_URL). In sandbox mode it
	// defaults to the embedded sandbox's.
	PaymentsBaseURL string
	// TerminalsBaseURL is the terminal cloud's address
	// (PORTAL_TERMINALS_BASE_URL). In sandbox mode it defaults to the
	// embedded sandbox's.
	TerminalsBaseURL string
	// SandboxAdminURL is the address of a sandbox whose admin API (with
	// PORTAL_SANDBOX_ADMIN_TOKEN) issues pricing codes and hands over
	// credentials (PORTAL_SANDBOX_ADMIN_URL). In sandbox mode it is the
	// embedded sandbox's. Never set in production: there the operator's
	// integration specialists hand credentials over and admins type them.
	SandboxAdminURL string
}

// SandboxAdmin reports whether the portal rehearses against a sandbox whose
// admin API it may call (credentials fetched, pricing codes issued).
func (c *Config) SandboxAdmin() bool {
	return c.Processor.SandboxAdminURL != "" && c.Sandbox.AdminToken != ""
}

func readProcessor(r *reader, c *Config) ProcessorConfig {
	p := ProcessorConfig{
		PaymentsBaseURL:  r.optionalURL("PORTAL_PAYMENTS_BASE_URL"),
		TerminalsBaseURL: r.optionalURL("PORTAL_TERMINALS_BASE_URL"),
		SandboxAdminURL:  r.optionalURL("PORTAL_SANDBOX_ADMIN_URL"),
	}
	if p.SandboxAdminURL != "" {
		switch {
		case c.IsProduction():
			r.fail("PORTAL_SANDBOX_ADMIN_URL", "is refused in production: credentials are fetched only from a sandbox; in production admins enter what the operator hands over")
		case c.Upstream.Mode == "sandbox":
			r.fail("PORTAL_SANDBOX_ADMIN_URL", "is for a remote sandbox (PORTAL_UPSTREAM_MODE=remote); the embedded sandbox is used by itself")
		case c.Sandbox.AdminToken == "":
			r.fail("PORTAL_SANDBOX_ADMIN_TOKEN", "is required with PORTAL_SANDBOX_ADMIN_URL")
		}
	}
	return p
}

// optionalURL reads an absolute http(s) URL, or "" when unset.
func (r *reader) optionalURL(name string) string {
	r.note(name, "absolute http(s) URL", "")
	v, ok := r.raw(name)
	if !ok || strings.TrimSpace(v) == "" {
		return ""
	}
	return strings.TrimSuffix(r.url(name, "").String(), "/")
}
