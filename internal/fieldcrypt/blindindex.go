package fieldcrypt

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// A blind index lets the portal find equal values of personal data (two applications with
// the same TIN) without decrypting anything: it stores, beside the sealed value, a keyed
// HMAC-SHA256 of the normalised value, and looks values up by their HMAC. Without the key
// the index tells nothing; with it, it still only tells equality.
//
// Each key of the ring has its own index key, derived with HKDF, never used to encrypt. An
// index is written "<key id>:<base64url(HMAC)>" under the active key; a lookup computes the
// index under every key of the ring (BlindIndexes), so values indexed before a rotation are
// still found, and IndexNeedsRotation tells a backfill which ones to rewrite.

// indexKeyInfo separates the derived index keys from any other use of the keys.
const indexKeyInfo = "portal fieldcrypt blind index v1"

func deriveIndexKey(key []byte) ([]byte, error) {
	return hkdf.Key(sha256.New, key, nil, indexKeyInfo, sha256.Size)
}

// BlindIndex returns the index of value under the active key, for the purpose given
// ("tin"): an index of one purpose never matches one of another. The caller normalises the
// value first (digits only, for a TIN). An empty value has the empty index: nothing to find.
func (r *KeyRing) BlindIndex(purpose, value string) string {
	if value == "" {
		return ""
	}
	return r.blindIndex(r.active, purpose, value)
}

// BlindIndexes returns the index of value under every key of the ring, the active key
// first: the values to look for in an index column written over several rotations.
func (r *KeyRing) BlindIndexes(purpose, value string) []string {
	if value == "" {
		return nil
	}
	out := []string{r.blindIndex(r.active, purpose, value)}
	for _, id := range r.KeyIDs() {
		if id != r.active {
			out = append(out, r.blindIndex(id, purpose, value))
		}
	}
	return out
}

// IndexNeedsRotation reports whether an index was written under a key other than the
// active one (or is not an index at all), so a backfill should compute it again.
func (r *KeyRing) IndexNeedsRotation(index string) bool {
	if index == "" {
		return false
	}
	id, _, ok := strings.Cut(index, ":")
	return !ok || id != r.active
}

func (r *KeyRing) blindIndex(keyID, purpose, value string) string {
	mac := hmac.New(sha256.New, r.indexKeys[keyID])
	mac.Write([]byte(purpose))
	mac.Write([]byte{0})
	mac.Write([]byte(value))
	return keyID + ":" + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}
