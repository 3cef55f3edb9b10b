package apikeys

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
)

// A key is written "ppk_<id>_<secret>": ppk_ says what it is (secret scanners match it),
// id is the public part shown in lists, secret is 256 random bits.
const (
	tokenPrefix = "ppk_"
	idBytes     = 5  // 8 characters of base32
	secretBytes = 32 // 43 characters of base64url
	// maxTokenLength bounds what Authenticate reads: a real key is 56 characters.
	maxTokenLength = 100
)

var publicIDEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newToken draws a key: its public prefix and the whole key (prefix, "_", secret).
func newToken(random io.Reader) (prefix, token string, err error) {
	if random == nil {
		random = rand.Reader
	}
	buf := make([]byte, idBytes+secretBytes)
	if _, err := io.ReadFull(random, buf); err != nil {
		return "", "", fmt.Errorf("draw an API key: %w", err)
	}
	prefix = tokenPrefix + publicIDEncoding.EncodeToString(buf[:idBytes])
	return prefix, prefix + "_" + base64.RawURLEncoding.EncodeToString(buf[idBytes:]), nil
}

// hashOf is what the table keeps of a key: the SHA-256 of the whole key. A key holds
// 256 random bits, so no slow password hash is needed to resist guessing.
func hashOf(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// plausible reports whether s has the shape of a key, so that a stray value (a cookie, a
// session token) is refused without a query.
func plausible(s string) bool {
	if len(s) > maxTokenLength || !strings.HasPrefix(s, tokenPrefix) {
		return false
	}
	prefix, secret, ok := strings.Cut(strings.TrimPrefix(s, tokenPrefix), "_")
	return ok && len(prefix) == 8 && len(secret) == 43
}
