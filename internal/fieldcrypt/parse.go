package fieldcrypt

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// ParseKeyRing builds a ring from a configuration string of comma-separated id:key pairs, each
// key the base64 (standard or URL alphabet, padded or not) of 32 random bytes:
//
//	k2025:9Z0...=,k2026:Qm1...=
//
// activeKeyID names the pair that seals new values; it comes from a separate setting so that
// rotating is "add the new key everywhere, then switch the active id". Spaces around pairs
// are ignored. Errors name the key id and never include key material.
func ParseKeyRing(activeKeyID, spec string) (*KeyRing, error) {
	keys := make(map[string][]byte)
	for i, pair := range strings.Split(spec, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		id, encoded, ok := strings.Cut(pair, ":")
		id, encoded = strings.TrimSpace(id), strings.TrimSpace(encoded)
		if !ok || id == "" || encoded == "" {
			return nil, fmt.Errorf("%w: entry %d is not of the form id:base64key", ErrInvalidKey, i+1)
		}
		if _, dup := keys[id]; dup {
			return nil, fmt.Errorf("%w: key id %q appears twice", ErrInvalidKey, id)
		}
		key, err := decodeKey(encoded)
		if err != nil {
			return nil, fmt.Errorf("%w: key %q is not valid base64", ErrInvalidKey, id)
		}
		keys[id] = key
	}
	return NewKeyRing(activeKeyID, keys)
}

// decodeKey accepts the base64 variants that key generators commonly print.
func decodeKey(s string) ([]byte, error) {
	var firstErr error
	for _, enc := range []*base64.Encoding{
		base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding,
	} {
		b, err := enc.DecodeString(s)
		if err == nil {
			return b, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}
