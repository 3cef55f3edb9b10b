package validation

import (
	"net/url"
	"regexp"
	"strings"
)

// IsPhone reports whether s is a phone number the processor can dial:
//   - a US (NANP) number of 10 digits in a common format: 2125550100, 212-555-0100,
//     212.555.0100, 212 555 0100, (212) 555-0100, optionally preceded by 1 or +1;
//   - or an international number in E.164 form: + then 8 to 15 digits, spaces, dashes and dots
//     allowed between them.
//
// US numbers follow the NANP rules (area code and exchange start with 2–9), which catches most
// typos. Extensions are not accepted: the processor's phone fields have no room for them.
func IsPhone(s string) bool {
	if strings.HasPrefix(s, "+") {
		d, ok := phoneDigits(s[1:])
		if !ok || d[0] == '0' || len(d) < 8 || len(d) > 15 {
			return false
		}
		if d[0] == '1' {
			// +1 is the NANP: hold it to the same rules as a US number.
			return isNANP(d[1:])
		}
		return true
	}
	d, ok := phoneDigits(s)
	if !ok {
		return false
	}
	if len(d) == 11 && d[0] == '1' {
		d = d[1:]
	}
	return isNANP(d)
}

// phoneDigits strips the separators people type in phone numbers; parentheses are allowed
// only as a pair around the area code.
func phoneDigits(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if open := strings.IndexByte(s, '('); open >= 0 {
		if !parenthesisedArea.MatchString(s) {
			return "", false
		}
	} else if strings.IndexByte(s, ')') >= 0 {
		return "", false
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')':
		default:
			return "", false
		}
	}
	return b.String(), b.Len() > 0
}

var parenthesisedArea = regexp.MustCompile(`^(1[ .-]?)?\(\d{3}\)[^()]*$`)

// isNANP reports whether d is a 10-digit North American number with valid area code and
// exchange.
func isNANP(d string) bool {
	return len(d) == 10 && d[0] >= '2' && d[3] >= '2'
}

var hostLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// IsWebsite reports whether s is a web address: http or https, a host name with at least one
// dot and a top-level domain of letters, no user name or password. The scheme may be left out
// ("example.com/shop"), because that is how people type addresses.
func IsWebsite(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	raw := s
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Opaque != "" {
		return false
	}
	return isPublicHostName(strings.ToLower(u.Hostname()))
}

// isPublicHostName reports whether host is a name of two or more labels
// ending in a top-level domain of letters (so not an IP address).
func isPublicHostName(host string) bool {
	labels := strings.Split(host, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if !hostLabel.MatchString(l) {
			return false
		}
	}
	tld := labels[len(labels)-1]
	return len(tld) >= 2 && strings.Trim(tld, "abcdefghijklmnopqrstuvwxyz") == ""
}
