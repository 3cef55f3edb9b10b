package fieldcrypt

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, KeySize) }

func mustRing(t *testing.T, active string, keys map[string][]byte) *KeyRing {
	t.Helper()
	r, err := NewKeyRing(active, keys)
	if err != nil {
		t.Fatalf("NewKeyRing: %v", err)
	}
	return r
}

const (
	secret = "123-45-6789"
	aad    = "application:7f1c:owners.3a9e.ssn"
)

func TestRoundTrip(t *testing.T) {
	r := mustRing(t, "k2026", map[string][]byte{"k2026": key(1)})
	ct, err := r.Encrypt(secret, aad)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ct, "v1.k2026.") {
		t.Errorf("ciphertext %q lacks the v1.<keyID>. prefix", ct)
	}
	if strings.Contains(ct, "6789") || strings.Contains(ct, "+") || strings.Contains(ct, "/") || strings.Contains(ct, "=") {
		t.Errorf("ciphertext %q holds plaintext or non-base64url characters", ct)
	}
	got, err := r.Decrypt(ct, aad)
	if err != nil || got != secret {
		t.Fatalf("Decrypt = %q, %v; want %q", got, err, secret)
	}
	again, _ := r.Encrypt(secret, aad)
	if again == ct {
		t.Error("two encryptions of the same value are equal; the nonce must be fresh")
	}
}

func TestEmptyStaysEmpty(t *testing.T) {
	r := mustRing(t, "a", map[string][]byte{"a": key(1)})
	if ct, err := r.Encrypt("", aad); ct != "" || err != nil {
		t.Errorf("Encrypt(\"\") = %q, %v", ct, err)
	}
	if pt, err := r.Decrypt("", aad); pt != "" || err != nil {
		t.Errorf("Decrypt(\"\") = %q, %v", pt, err)
	}
	if r.NeedsRotation("") {
		t.Error("NeedsRotation(\"\") = true")
	}
}

func TestDecryptFailures(t *testing.T) {
	r := mustRing(t, "a", map[string][]byte{"a": key(1), "b": key(2)})
	ct, err := r.Encrypt(secret, aad)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.TrimPrefix(ct, "v1.a.")
	raw, _ := base64.RawURLEncoding.DecodeString(body)
	flipped := bytes.Clone(raw)
	flipped[len(flipped)-1] ^= 0x01
	tampered := "v1.a." + base64.RawURLEncoding.EncodeToString(flipped)

	tests := []struct {
		name string
		ct   string
		aad  string
		want error
	}{
		{"wrong aad (other row or field)", ct, "application:7f1c:owners.other.ssn", ErrDecrypt},
		{"tampered body", tampered, aad, ErrDecrypt},
		{"key id swapped to another key of the ring", "v1.b." + body, aad, ErrDecrypt},
		{"unknown key id", "v1.zz." + body, aad, ErrUnknownKey},
		{"unknown version", "v2.a." + body, aad, ErrMalformed},
		{"missing part", "v1." + body, aad, ErrMalformed},
		{"bad base64", "v1.a.@@@", aad, ErrMalformed},
		{"too short", "v1.a.AAAA", aad, ErrMalformed},
		{"plaintext stored by mistake", secret, aad, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Decrypt(tt.ct, tt.aad)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if got != "" {
				t.Errorf("returned %q alongside an error", got)
			}
			if strings.Contains(err.Error(), "6789") {
				t.Errorf("error %q contains plaintext", err)
			}
		})
	}
}

func TestRotation(t *testing.T) {
	old := mustRing(t, "k2025", map[string][]byte{"k2025": key(1)})
	ct2025, err := old.Encrypt(secret, aad)
	if err != nil {
		t.Fatal(err)
	}
	// The new configuration keeps the old key for reading and seals with the new one.
	ring := mustRing(t, "k2026", map[string][]byte{"k2025": key(1), "k2026": key(2)})
	if got, err := ring.Decrypt(ct2025, aad); err != nil || got != secret {
		t.Fatalf("old value: Decrypt = %q, %v", got, err)
	}
	if !ring.NeedsRotation(ct2025) {
		t.Error("a value sealed with k2025 must need rotation once k2026 is active")
	}
	ct2026, err := ring.Reencrypt(ct2025, aad)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ct2026, "v1.k2026.") || ring.NeedsRotation(ct2026) {
		t.Errorf("re-encrypted value %q is not sealed with the active key", ct2026)
	}
	if got, _ := ring.Decrypt(ct2026, aad); got != secret {
		t.Errorf("re-encrypted value opens to %q", got)
	}
	if ring.NeedsRotation("garbage") {
		t.Error("a malformed value cannot be rotated and must report false")
	}
	if _, err := ring.Reencrypt(ct2025, "other"); !errors.Is(err, ErrDecrypt) {
		t.Errorf("Reencrypt with wrong aad: err = %v", err)
	}
	if _, err := old.Decrypt(ct2026, aad); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("old ring reading a new value: err = %v, want ErrUnknownKey", err)
	}
}

func TestNewKeyRingErrors(t *testing.T) {
	tests := []struct {
		name   string
		active string
		keys   map[string][]byte
		inErr  string
	}{
		{"no keys", "a", nil, "no keys"},
		{"short key", "a", map[string][]byte{"a": make([]byte, 16)}, `key "a" is 16 bytes, want 32`},
		{"long key", "a", map[string][]byte{"a": make([]byte, 33)}, `key "a" is 33 bytes, want 32`},
		{"active missing", "c", map[string][]byte{"a": key(1), "b": key(2)}, `active key id "c" is not among the keys (a, b)`},
		{"bad id", "a.b", map[string][]byte{"a.b": key(1)}, `key id "a.b" must be`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewKeyRing(tt.active, tt.keys)
			if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), tt.inErr) {
				t.Fatalf("err = %v, want ErrInvalidKey containing %q", err, tt.inErr)
			}
		})
	}
}

func TestNewKeyRingCopiesKeys(t *testing.T) {
	k := key(7)
	r := mustRing(t, "a", map[string][]byte{"a": k})
	ct, _ := r.Encrypt(secret, aad)
	k[0] ^= 0xff // the caller wipes or reuses its buffer
	if got, err := r.Decrypt(ct, aad); err != nil || got != secret {
		t.Fatalf("ring depends on the caller's key slice: %q, %v", got, err)
	}
}

func TestParseKeyRing(t *testing.T) {
	k1 := base64.StdEncoding.EncodeToString(key(1))
	k2 := base64.RawURLEncoding.EncodeToString(key(2))
	r, err := ParseKeyRing("k2026", " k2025:"+k1+" , k2026:"+k2+",")
	if err != nil {
		t.Fatal(err)
	}
	if r.ActiveKeyID() != "k2026" || strings.Join(r.KeyIDs(), ",") != "k2025,k2026" {
		t.Errorf("ring = %v", r)
	}
	// Same key bytes as a ring built directly: values are interchangeable.
	direct := mustRing(t, "k2025", map[string][]byte{"k2025": key(1)})
	ct, _ := direct.Encrypt(secret, aad)
	if got, err := r.Decrypt(ct, aad); err != nil || got != secret {
		t.Errorf("parsed ring cannot open a value of the same key: %q, %v", got, err)
	}

	short := base64.StdEncoding.EncodeToString(make([]byte, 31))
	bad := []struct {
		name, active, spec, inErr string
	}{
		{"empty", "a", "", "no keys"},
		{"no colon", "a", "a" + k1, "entry 1 is not of the form id:base64key"},
		{"no key", "a", "a:", "entry 1 is not of the form"},
		{"bad base64", "a", "a:not*base64", `key "a" is not valid base64`},
		{"short", "a", "a:" + short, `key "a" is 31 bytes, want 32`},
		{"duplicate", "a", "a:" + k1 + ",a:" + k2, `key id "a" appears twice`},
		{"active absent", "b", "a:" + k1, `active key id "b"`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseKeyRing(tt.active, tt.spec)
			if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), tt.inErr) {
				t.Fatalf("err = %v, want ErrInvalidKey containing %q", err, tt.inErr)
			}
			if strings.Contains(err.Error(), k1) || strings.Contains(err.Error(), short) {
				t.Errorf("error %q contains key material", err)
			}
		})
	}
}

func TestRingPrintsNoKeys(t *testing.T) {
	r := mustRing(t, "a", map[string][]byte{"a": key(0x41)}) // 'A' bytes would show in a dump
	for _, s := range []string{fmt.Sprint(r), fmt.Sprintf("%+v", r), fmt.Sprintf("%#v", r), r.LogValue().String()} {
		if strings.Contains(s, "AAAA") || !strings.Contains(s, "a") {
			t.Errorf("printed ring %q", s)
		}
	}
}

func TestMask(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"123-45-6789", "•••• 6789"},
		{"123456789", "•••• 6789"},
		{"12-3456789", "•••• 6789"},
		{"000123456789012", "•••• 9012"},
		{"12345", "•••• 2345"},
		{"1234", "••••"},
		{"12", "••••"},
		{"abc", "••••"},
		{"  ", "••••"},
	}
	for _, tt := range tests {
		if got := Mask(tt.in); got != tt.want {
			t.Errorf("Mask(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
