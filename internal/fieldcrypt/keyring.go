// Package fieldcrypt encrypts personal data (SSNs, TINs, bank account numbers) field by field
// with AES-256-GCM, under a ring of keys so that keys can be rotated without downtime.
//
// A sealed value is self-describing text, safe for a text or JSONB column:
//
//	v1.<keyID>.<base64url(nonce || ciphertext || tag)>
//
// The key id says which key opens it, so old values stay readable after a new key becomes
// active, and NeedsRotation finds the values a re-encryption job should rewrite. Every value is
// sealed with additional authenticated data (AAD) naming where it lives, for example the
// application id and the field, so that a ciphertext copied to another row or field fails to
// open instead of revealing the wrong person's number.
//
// Nonces are 96 random bits per value; NIST's bound of 2^32 values per key is far beyond what a
// portal seals, and rotating the key starts the count again.
//
// Errors never contain plaintext or key material.
package fieldcrypt

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
)

// KeySize is the length of an AES-256 key in bytes.
const KeySize = 32

// version is the format marker of sealed values; it is also bound into the AAD so that a later
// format can never be confused with this one.
const version = "v1"

var (
	// ErrMalformed means a value is not a sealed value of this package's format.
	ErrMalformed = errors.New("fieldcrypt: malformed ciphertext")
	// ErrUnknownKey means a value was sealed with a key id the ring does not hold.
	ErrUnknownKey = errors.New("fieldcrypt: unknown key id")
	// ErrDecrypt means a value failed authentication: it was altered, or the AAD or key differs
	// from the ones it was sealed with.
	ErrDecrypt = errors.New("fieldcrypt: ciphertext failed authentication")
	// ErrInvalidKey means a key ring could not be built from the keys given.
	ErrInvalidKey = errors.New("fieldcrypt: invalid key")
)

// keyIDPattern keeps key ids free of the separators of the sealed format and the config string.
var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// KeyRing seals values with its active key and opens values sealed with any key it holds.
// It is safe for concurrent use.
type KeyRing struct {
	active string
	aeads  map[string]cipher.AEAD
	// indexKeys are the keys of blind indexes (blindindex.go), derived from each key.
	indexKeys map[string][]byte
}

// NewKeyRing builds a ring from raw keys of exactly KeySize bytes, keyed by id. Ids are 1–64
// characters of letters, digits, '-' and '_'. activeKeyID must be one of them; it seals every
// new value. The ring does not keep references to the caller's slices.
func NewKeyRing(activeKeyID string, keys map[string][]byte) (*KeyRing, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: no keys given", ErrInvalidKey)
	}
	ring := &KeyRing{active: activeKeyID, aeads: make(map[string]cipher.AEAD, len(keys)), indexKeys: make(map[string][]byte, len(keys))}
	for id, key := range keys {
		if !keyIDPattern.MatchString(id) {
			return nil, fmt.Errorf("%w: key id %q must be 1-64 letters, digits, '-' or '_'", ErrInvalidKey, id)
		}
		if len(key) != KeySize {
			return nil, fmt.Errorf("%w: key %q is %d bytes, want %d", ErrInvalidKey, id, len(key), KeySize)
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, fmt.Errorf("%w: key %q: %w", ErrInvalidKey, id, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("%w: key %q: %w", ErrInvalidKey, id, err)
		}
		ring.aeads[id] = aead
		if ring.indexKeys[id], err = deriveIndexKey(key); err != nil {
			return nil, fmt.Errorf("%w: key %q: %w", ErrInvalidKey, id, err)
		}
	}
	if _, ok := ring.aeads[activeKeyID]; !ok {
		return nil, fmt.Errorf("%w: active key id %q is not among the keys (%s)",
			ErrInvalidKey, activeKeyID, strings.Join(ring.KeyIDs(), ", "))
	}
	return ring, nil
}

// ActiveKeyID returns the id of the key that seals new values.
func (r *KeyRing) ActiveKeyID() string { return r.active }

// KeyIDs returns the ids of all keys in the ring, sorted.
func (r *KeyRing) KeyIDs() []string {
	ids := make([]string, 0, len(r.aeads))
	for id := range r.aeads {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Encrypt seals plaintext with the active key, bound to aad (for example
// "application:<id>:business.tin"). The empty string stays empty: an unfilled draft field
// carries no secret, and keeping it empty lets callers tell "not entered" from "entered"
// without a key.
func (r *KeyRing) Encrypt(plaintext, aad string) (string, error) {
	if plaintext == "" {
		return "", nil
	}
	aead := r.aeads[r.active]
	nonce := make([]byte, aead.NonceSize())
	// crypto/rand.Read never fails on supported platforms (it aborts the program instead),
	// so its error needs no handling.
	_, _ = rand.Read(nonce)
	sealed := aead.Seal(nonce, nonce, []byte(plaintext), boundAAD(aad))
	return version + "." + r.active + "." + base64.RawURLEncoding.EncodeToString(sealed), nil
}

// Decrypt opens a value sealed by Encrypt with the same aad, using whichever key of the ring
// sealed it. The empty string opens to the empty string. Errors wrap ErrMalformed,
// ErrUnknownKey or ErrDecrypt.
func (r *KeyRing) Decrypt(ciphertext, aad string) (string, error) {
	if ciphertext == "" {
		return "", nil
	}
	keyID, sealed, err := split(ciphertext)
	if err != nil {
		return "", err
	}
	aead, ok := r.aeads[keyID]
	if !ok {
		return "", fmt.Errorf("%w %q", ErrUnknownKey, keyID)
	}
	if len(sealed) < aead.NonceSize()+aead.Overhead() {
		return "", fmt.Errorf("%w: too short", ErrMalformed)
	}
	nonce, body := sealed[:aead.NonceSize()], sealed[aead.NonceSize():]
	plain, err := aead.Open(nil, nonce, body, boundAAD(aad))
	if err != nil {
		return "", fmt.Errorf("%w (key %q)", ErrDecrypt, keyID)
	}
	return string(plain), nil
}

// NeedsRotation reports whether ciphertext was sealed with a key other than the active one, so
// a re-encryption job should rewrite it with Reencrypt. Empty and malformed values report
// false: there is nothing a re-encryption could do for them (Decrypt reports the malformed).
func (r *KeyRing) NeedsRotation(ciphertext string) bool {
	if ciphertext == "" {
		return false
	}
	keyID, _, err := split(ciphertext)
	return err == nil && keyID != r.active
}

// Reencrypt opens ciphertext and seals it again with the active key and the same aad.
func (r *KeyRing) Reencrypt(ciphertext, aad string) (string, error) {
	plain, err := r.Decrypt(ciphertext, aad)
	if err != nil {
		return "", err
	}
	return r.Encrypt(plain, aad)
}

// String describes the ring without its keys, so that printing or logging a ring by mistake
// leaks nothing.
func (r *KeyRing) String() string {
	return fmt.Sprintf("fieldcrypt.KeyRing{active: %s, keys: %s}", r.active, strings.Join(r.KeyIDs(), ","))
}

// GoString is String, so that %#v leaks nothing either.
func (r *KeyRing) GoString() string { return r.String() }

// LogValue lets slog log a ring as its key ids only.
func (r *KeyRing) LogValue() slog.Value {
	return slog.GroupValue(slog.String("active", r.active), slog.Any("keys", r.KeyIDs()))
}

// split takes a sealed value apart into its key id and decoded bytes.
func split(ciphertext string) (keyID string, sealed []byte, err error) {
	parts := strings.Split(ciphertext, ".")
	if len(parts) != 3 || parts[0] != version || !keyIDPattern.MatchString(parts[1]) {
		return "", nil, ErrMalformed
	}
	sealed, err = base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return "", nil, fmt.Errorf("%w: bad base64", ErrMalformed)
	}
	return parts[1], sealed, nil
}

// boundAAD prefixes the caller's AAD with the format version.
func boundAAD(aad string) []byte {
	return []byte(version + "|" + aad)
}
