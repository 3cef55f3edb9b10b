package app

import (
	"context"
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

// sandboxKeyFiles is the embedded sandbox's sealed object key as the key ring's registry
// sees it (keys.Files): one file, in sandbox mode with a data folder.
type sandboxKeyFiles struct {
	path string
	ring *fieldcrypt.KeyRing
}

func (f sandboxKeyFiles) Place() string { return "sandbox object key (" + f.path + ")" }

// read returns the sealed key, "" when there is none yet.
func (f sandboxKeyFiles) read() (string, error) {
	b, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return strings.TrimSpace(string(b)), err
}

func (f sandboxKeyFiles) CountByKey(context.Context) (map[string]int, error) {
	sealed, err := f.read()
	if err != nil || sealed == "" {
		return map[string]int{}, err
	}
	parts := strings.SplitN(sealed, ".", 3)
	if len(parts) != 3 {
		return nil, fmt.Errorf("%s is not a sealed key", f.path)
	}
	return map[string]int{parts[1]: 1}, nil
}

func (f sandboxKeyFiles) Rotate(_ context.Context, progress func(done, total int)) (int, error) {
	sealed, err := f.read()
	if err != nil || sealed == "" || !f.ring.NeedsRotation(sealed) {
		return 0, err
	}
	progress(0, 1)
	fresh, err := f.ring.Reencrypt(sealed, sandboxKeyAAD)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", f.path, err)
	}
	// Written aside and renamed, so a crash leaves the old or the new file, whole.
	tmp := f.path + ".new"
	if err := os.WriteFile(tmp, []byte(fresh+"\n"), 0o600); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp, f.path); err != nil {
		return 0, err
	}
	progress(1, 1)
	return 1, nil
}

func (f sandboxKeyFiles) Verify(context.Context) (int, error) {
	sealed, err := f.read()
	if err != nil || sealed == "" {
		return 0, err
	}
	if _, err := f.ring.Decrypt(sealed, sandboxKeyAAD); err != nil {
		return 1, fmt.Errorf("%s: %w", f.path, err)
	}
	return 1, nil
}
