package web

import (
	"net"
	"net/http"
	"net/netip"

	"github.com/labstack/echo/v4"
)

// clientAddress finds the client's address (c.RealIP, which the sign-in
// throttle counts by). Behind the configured proxies it is the rightmost
// X-Forwarded-For address that is not one of them, and only when the request
// came from one of them; anywhere else the connection's own address. Echo's
// default would also trust every loopback, link-local and private address,
// letting a client on a private network name any address it liked.
func clientAddress(proxies []netip.Prefix) echo.IPExtractor {
	if len(proxies) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range proxies {
		opts = append(opts, echo.TrustIPRange(&net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// fromTrustedProxy reports whether a request came straight from one of the
// proxies, whose X-Forwarded-Proto may then be believed.
func fromTrustedProxy(proxies []netip.Prefix) func(*http.Request) bool {
	return func(r *http.Request) bool {
		ap, err := netip.ParseAddrPort(r.RemoteAddr)
		if err != nil {
			return false
		}
		for _, p := range proxies {
			if p.Contains(ap.Addr().Unmap()) {
				return true
			}
		}
		return false
	}
}
