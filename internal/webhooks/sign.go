package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Standard Webhooks 1.0: a secret is "whsec_" and the base64 of 24 to 64 random bytes;
// a signature is "v1," and the base64 of HMAC-SHA256(secret, "id.timestamp.body").
const (
	secretPrefix = "whsec_"
	secretBytes  = 32
	// RotationOverlap is how long a replaced secret goes on signing beside the new one,
	// so a receiver can switch to the new secret without dropping a delivery.
	RotationOverlap = 24 * time.Hour
)

// The headers of a delivery, per Standard Webhooks.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// newSecret draws an endpoint's signing secret.
func newSecret(random io.Reader) (string, error) {
	if random == nil {
		random = rand.Reader
	}
	key := make([]byte, secretBytes)
	if _, err := io.ReadFull(random, key); err != nil {
		return "", fmt.Errorf("draw a webhook secret: %w", err)
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// secretKey is the HMAC key of a secret: the bytes its base64 holds.
func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil || len(key) < 24 || len(key) > 64 {
		return nil, fmt.Errorf("webhooks: a signing secret is not whsec_ and the base64 of 24 to 64 bytes")
	}
	return key, nil
}

// signature is one "v1,<base64>" signature of a delivery under key.
func signature(key []byte, id string, at time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(at.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Sign returns the headers of a delivery of body signed at at, with one signature per
// secret (the current one first; a replaced one still in its overlap after it),
// space-separated as Standard Webhooks asks.
func Sign(id uuid.UUID, at time.Time, body []byte, secrets ...string) (map[string]string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := secretKey(s)
		if err != nil {
			return nil, err
		}
		sigs = append(sigs, signature(key, id.String(), at, body))
	}
	return map[string]string{
		HeaderID:        id.String(),
		HeaderTimestamp: strconv.FormatInt(at.Unix(), 10),
		HeaderSignature: strings.Join(sigs, " "),
	}, nil
}

// sealAAD binds a sealed secret to its endpoint and column.
func sealAAD(endpointID uuid.UUID, column string) string {
	return "webhook_endpoints/" + endpointID.String() + "/" + column
}
