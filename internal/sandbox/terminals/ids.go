package terminals

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// hexID returns 32 hex digits without dashes, the cloud's id form.
func hexID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// codeAlphabet avoids letters and digits that read alike (0/O, 1/I).
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// randomCode returns n characters of codeAlphabet.
func randomCode(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b)
}

// locationCode returns a location id like YZM-5B5-RAC, as the public
// client uses.
func locationCode() string {
	c := randomCode(9)
	return c[0:3] + "-" + c[3:6] + "-" + c[6:9]
}

// apiKey returns a new API key.
func apiKey() string { return "sbx_term_" + hexID() }

// approvalNumber returns a six-character approval code.
func approvalNumber() string { return randomCode(6) }

// guid returns a version 4 GUID text.
func guid() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return strings.Join([]string{h[0:8], h[8:12], h[12:16], h[16:20], h[20:32]}, "-")
}

// mask keeps the last four characters of a secret for display.
func mask(s string) string {
	if len(s) <= 4 {
		return "****"
	}
	return "****" + s[len(s)-4:]
}
