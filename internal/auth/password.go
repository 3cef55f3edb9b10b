package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters: OWASP's recommended minimum (19 MiB, 2 passes), which
// keeps a sign-in around 20 ms on a small server.
const (
	argonMemoryKiB = 19 * 1024
	argonTime      = 2
	argonThreads   = 1
	argonKeyLen    = 32
	saltLen        = 16
)

// dummyHash is what the password of an unknown e-mail is checked against, so that
// a wrong e-mail costs what a wrong password costs. It is the hash of a random
// password nobody kept, made with the parameters above (a test holds them
// together); hashing one at every start cost 20 ms and 19 MiB. A match would
// sign nobody in: there is no account.
const dummyHash = "$argon2id$v=19$m=19456,t=2,p=1$mElyNfCqhUnV5lfxP6UNyg$bV4Zqz43ST6EeL7XBXnW2ywoWJDXW3CEEeBeK7PnRXA"

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 12

// HashPassword returns an encoded argon2id hash in the PHC string format.
func HashPassword(password string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemoryKiB, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemoryKiB, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// VerifyPassword reports whether password matches the encoded hash.
func VerifyPassword(encoded, password string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("unsupported password hash")
	}
	var version int
	var memory, iterations uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errors.New("unsupported argon2 version")
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &iterations, &threads); err != nil {
		return false, errors.New("malformed argon2 parameters")
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false, errors.New("malformed salt")
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil {
		return false, errors.New("malformed hash")
	}
	got := argon2.IDKey([]byte(password), salt, iterations, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// GeneratePassword returns a random password for new accounts and resets,
// readable enough to pass on by phone.
func GeneratePassword() string {
	const alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	out := make([]byte, len(b))
	for i, v := range b {
		out[i] = alphabet[int(v)%len(alphabet)]
	}
	return string(out[0:5]) + "-" + string(out[5:10]) + "-" + string(out[10:15]) + "-" + string(out[15:20])
}

// CheckPasswordStrength returns a message saying what is wrong with a new
// password, or "" when it is acceptable.
func CheckPasswordStrength(password, email string) string {
	switch {
	case len([]rune(password)) < MinPasswordLength:
		return fmt.Sprintf("Use at least %d characters.", MinPasswordLength)
	case len(password) > 256:
		return "Use at most 256 characters."
	case email != "" && strings.Contains(strings.ToLower(password), strings.ToLower(strings.SplitN(email, "@", 2)[0])):
		return "Don't include your e-mail name in the password."
	}
	return ""
}
