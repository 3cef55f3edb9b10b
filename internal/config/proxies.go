package config

import (
	"fmt"
	"net/netip"
	"os"
	"regexp"
	"strings"
)

// readTrustedProxies reads PORTAL_TRUSTED_PROXIES: the addresses of the proxies
// in front of the portal, as CIDRs or single addresses. Only a request arriving
// from one of them has its X-Forwarded-For and X-Forwarded-Proto believed, and
// the client is the rightmost forwarded address that is not one of them.
// PORTAL_TRUST_PROXY=true alone used to trust every private-network hop, so a
// client on such a network could name any address it liked; it now needs the
// list.
func readTrustedProxies(r *reader) []netip.Prefix {
	var out []netip.Prefix
	for _, item := range r.list(r.str("PORTAL_TRUSTED_PROXIES", "")) {
		p, err := parsePrefix(item)
		switch {
		case err != nil:
			r.fail("PORTAL_TRUSTED_PROXIES", fmt.Sprintf("must list addresses or CIDRs such as 10.0.0.0/24, 127.0.0.1; %q is neither", item))
			return nil
		case p.Bits() == 0:
			r.fail("PORTAL_TRUSTED_PROXIES", fmt.Sprintf("must not trust every address (%s): any client could then name its own", item))
			return nil
		}
		out = append(out, p)
	}
	trust := r.boolean("PORTAL_TRUST_PROXY", len(out) > 0)
	switch {
	case trust && len(out) == 0:
		r.fail("PORTAL_TRUST_PROXY", "=true needs PORTAL_TRUSTED_PROXIES: the addresses of your proxies or load balancers "+
			"(CIDRs such as 10.0.0.0/24), the only ones whose X-Forwarded-For is believed")
	case !trust && len(out) > 0:
		r.fail("PORTAL_TRUST_PROXY", "=false contradicts PORTAL_TRUSTED_PROXIES; leave it unset")
	}
	return out
}

// parsePrefix reads "10.0.0.0/8" or a single address "10.0.0.5" (a /32).
func parsePrefix(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		return p.Masked(), err
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

// instanceShape is what PORTAL_INSTANCE_NAME accepts: a short name safe in
// logs and in River's client id.
var instanceShape = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)

// readInstance reads PORTAL_INSTANCE_NAME, or the host's name (a container's
// or pod's name where replicas run).
func readInstance(r *reader) string {
	host, _ := os.Hostname()
	if !instanceShape.MatchString(host) {
		host = "portal"
	}
	name := r.str("PORTAL_INSTANCE_NAME", host)
	if !instanceShape.MatchString(name) {
		r.fail("PORTAL_INSTANCE_NAME", fmt.Sprintf("must be letters, digits, dots, dashes or underscores (at most 63), not %q", name))
		return host
	}
	return name
}
