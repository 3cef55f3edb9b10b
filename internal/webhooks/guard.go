package webhooks

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"unicode/utf8"
)

// ErrPrivateAddress refuses a connection to an address outside the public internet
// (private, loopback, link-local, shared, reserved): whoever registers an endpoint must
// not make the portal call into its own network (SSRF).
var ErrPrivateAddress = errors.New("the receiver's address is not a public internet address")

// notPublic are the ranges a delivery never connects to, besides what netip classifies
// as private, loopback, link-local, multicast or unspecified.
var notPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (carrier-grade NAT)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the broadcast address
	netip.MustParsePrefix("::/96"),           // IPv4-compatible IPv6 (deprecated)
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64: reaches any IPv4 address
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/32"),       // Teredo: tunnels to any IPv4 address
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4: tunnels to any IPv4 address
	netip.MustParsePrefix("fc00::/7"),        // unique local
	netip.MustParsePrefix("fe80::/10"),       // link-local
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

// Public reports whether ip is an address of the public internet. An IPv4-mapped IPv6
// address (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsMulticast() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range notPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// dialControl is the net.Dialer's Control: it runs after the name was resolved, on the
// address about to be connected to, so a name that resolves to a public address at
// registration and a private one later (DNS rebinding) is refused all the same.
func dialControl(allowPrivate bool) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", ErrPrivateAddress, address)
		}
		ip, err := netip.ParseAddr(host)
		if err != nil || (!allowPrivate && !Public(ip)) {
			return fmt.Errorf("%w (%s)", ErrPrivateAddress, host)
		}
		return nil
	}
}

// maxURLLength bounds an endpoint's address.
const maxURLLength = 2048

// CheckURL reads an endpoint's address as an admin typed it and returns it tidied, or
// the message that refuses it. It must be an absolute https:// URL (http:// only where
// private addresses are allowed, for receivers on the same machine) without user or
// fragment; a host that is an address outside the public internet, or a name of this
// machine, is refused at once. A name is checked again on every connection (dialControl).
func CheckURL(raw string, allowPrivate bool) (string, string) {
	u, msg := parseURL(strings.TrimSpace(raw), allowPrivate)
	if msg != "" || allowPrivate {
		return u, msg
	}
	if msg := checkHost(strings.ToLower(strings.TrimSuffix(hostOf(u), "."))); msg != "" {
		return "", msg
	}
	return u, ""
}

// parseURL checks the address's shape.
func parseURL(raw string, allowPrivate bool) (string, string) {
	if raw == "" {
		return "", "Enter the HTTPS address that receives the webhooks."
	}
	if len(raw) > maxURLLength || !utf8.ValidString(raw) || strings.ContainsAny(raw, " \t\r\n\x00") {
		return "", "Enter one address of at most 2048 characters, without spaces."
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return "", "Enter a full address, like https://hooks.example.com/payportal."
	case u.Scheme != "https" && (!allowPrivate || u.Scheme != "http"):
		return "", "The address must start with https://: webhooks are only sent encrypted."
	case u.User != nil:
		return "", "Leave the user name and password out of the address; the signature proves who sends."
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "", "Leave the #fragment out of the address."
	}
	return u.String(), ""
}

// hostOf is the host of a checked address.
func hostOf(address string) string {
	u, _ := url.Parse(address)
	return u.Hostname()
}

// checkHost refuses, at registration, a host that is plainly not on the public
// internet: an address in a private or reserved range, or a name of this machine or
// network.
func checkHost(host string) string {
	if ip, err := netip.ParseAddr(host); err == nil {
		if !Public(ip) {
			return "This address is in a private, loopback or reserved range; webhooks are only sent to the public internet."
		}
		return ""
	}
	if host == "localhost" || !strings.Contains(host, ".") {
		return "Use the receiver's public name; names of this machine or network are refused."
	}
	for _, suffix := range []string{".localhost", ".local", ".internal"} {
		if strings.HasSuffix(host, suffix) {
			return "Use the receiver's public name; names of this machine or network are refused."
		}
	}
	return ""
}
