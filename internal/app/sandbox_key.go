package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"filippo.io/age"

	"github.com/payportal/portal/internal/fieldcrypt"
)

// sandboxKeyFile holds the embedded sandbox's object key, sealed with the portal's key ring,
// in the sandbox's data folder.
const sandboxKeyFile = "objects.key"

// sandboxKeyAAD binds the sealed key to its purpose.
const sandboxKeyAAD = "sandbox-object-identity"

// sandboxObjectIdentity returns the age identity the embedded sandbox encrypts its uploaded
// objects to. With a data folder it is made once and kept there sealed with the key ring (the
// folder then holds nothing readable without the portal's keys); without one it lives as long
// as the process, like the objects.
func sandboxObjectIdentity(dataDir string, ring *fieldcrypt.KeyRing) (*age.X25519Identity, error) {
	if dataDir == "" {
		return age.GenerateX25519Identity()
	}
	path := filepath.Join(dataDir, sandboxKeyFile)
	sealed, err := os.ReadFile(path)
	switch {
	case err == nil:
		secret, err := ring.Decrypt(strings.TrimSpace(string(sealed)), sandboxKeyAAD)
		if err != nil {
			return nil, fmt.Errorf("sandbox object key %s: %w", path, err)
		}
		return age.ParseX25519Identity(secret)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("sandbox object key: %w", err)
	}
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, err
	}
	out, err := ring.Encrypt(id.String(), sandboxKeyAAD)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("sandbox data folder: %w", err)
	}
	if err := os.WriteFile(path, []byte(out+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("sandbox object key: %w", err)
	}
	return id, nil
}
