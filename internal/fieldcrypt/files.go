package fieldcrypt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"filippo.io/age"
)

// Files are encrypted in age's format (age-encryption.org/v1): a random 128-bit file key per
// file, from which age derives the key of its STREAM payload, authenticated 64 KiB chunk by
// 64 KiB chunk, so a file of any size is encrypted and decrypted while it streams and a
// truncated or altered file fails to read. The file key is wrapped by the key ring in the
// file's header, in a stanza of its own type:
//
//	-> portal-keyring <key id> <plaintext size>
//	<the file key sealed by Encrypt, bound to the file's AAD>
//
// The header is authenticated as a whole (age's header MAC), so the size cannot be altered
// either. Rotating keys works as for personal data: files sealed under an older key stay
// readable while its key stays in the ring, and FileKeyID tells a re-encryption job which
// files to rewrite.

// fileStanzaType names the ring's stanza in an age header.
const fileStanzaType = "portal-keyring"

// ageMagic begins every age file; FileKeyID and IsEncryptedFile look for it.
const ageMagic = "age-encryption.org/v1\n"

var (
	// ErrNotEncryptedFile means the bytes are not an age file.
	ErrNotEncryptedFile = errors.New("fieldcrypt: not an encrypted file")
	// ErrNoRingStanza means an age file holds no file key wrapped by the ring.
	ErrNoRingStanza = errors.New("fieldcrypt: no key-ring stanza in the file's header")
)

// IsEncryptedFile reports whether head, the first bytes of a file (at least 22 of them),
// begins an age file.
func IsEncryptedFile(head []byte) bool { return bytes.HasPrefix(head, []byte(ageMagic)) }

// EncryptFile returns a writer that encrypts size bytes of plaintext to dst under a fresh file
// key wrapped by the active key, bound to aad (for example the object's storage key, so a
// file copied under another name fails to open). Close it to write the last chunk.
func (r *KeyRing) EncryptFile(dst io.Writer, aad string, size int64) (io.WriteCloser, error) {
	if size < 0 {
		return nil, fmt.Errorf("fieldcrypt: negative file size %d", size)
	}
	return age.Encrypt(dst, ringRecipient{ring: r, aad: aad, size: size})
}

// FileInfo is what the header of an encrypted file says.
type FileInfo struct {
	// KeyID is the ring key that wraps the file key.
	KeyID string
	// Size is the plaintext's length in bytes.
	Size int64
}

// DecryptFile reads the header of an encrypted file from src and returns a reader of its
// plaintext, which fails if the file was altered or cut short, with what the header says.
func (r *KeyRing) DecryptFile(src io.Reader, aad string) (io.Reader, FileInfo, error) {
	id := &ringIdentity{ring: r, aad: aad}
	plain, err := age.Decrypt(src, id)
	if err != nil {
		var noMatch *age.NoIdentityMatchError
		if errors.As(err, &noMatch) {
			return nil, FileInfo{}, ErrNoRingStanza
		}
		return nil, FileInfo{}, fmt.Errorf("fieldcrypt: decrypting file: %w", err)
	}
	return plain, id.info, nil
}

// FileKeyID returns the id of the ring key that wraps an encrypted file's key, reading only
// its header, so a re-encryption job can tell which files to rewrite.
func FileKeyID(src io.Reader) (string, error) {
	br := bufio.NewReader(src)
	head, err := br.Peek(len(ageMagic))
	if err != nil || !IsEncryptedFile(head) {
		return "", ErrNotEncryptedFile
	}
	for range 64 { // a header holds a handful of lines
		line, err := br.ReadString('\n')
		if err != nil {
			return "", ErrNoRingStanza
		}
		var keyID, size string
		if n, _ := fmt.Sscanf(line, "-> "+fileStanzaType+" %s %s", &keyID, &size); n == 2 {
			return keyID, nil
		}
		if len(line) >= 3 && line[:3] == "---" {
			break
		}
	}
	return "", ErrNoRingStanza
}

// ringRecipient wraps a file key with the ring's active key.
type ringRecipient struct {
	ring *KeyRing
	aad  string
	size int64
}

func (rr ringRecipient) Wrap(fileKey []byte) ([]*age.Stanza, error) {
	size := strconv.FormatInt(rr.size, 10)
	sealed, err := rr.ring.Encrypt(string(fileKey), fileAAD(rr.aad, size))
	if err != nil {
		return nil, err
	}
	return []*age.Stanza{{Type: fileStanzaType, Args: []string{rr.ring.active, size}, Body: []byte(sealed)}}, nil
}

// ringIdentity unwraps a file key with whichever ring key wrapped it, and keeps what the
// stanza says.
type ringIdentity struct {
	ring *KeyRing
	aad  string
	info FileInfo
}

func (ri *ringIdentity) Unwrap(stanzas []*age.Stanza) ([]byte, error) {
	for _, s := range stanzas {
		if s.Type != fileStanzaType || len(s.Args) != 2 {
			continue
		}
		size, err := strconv.ParseInt(s.Args[1], 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("%w: bad size in the file's header", ErrMalformed)
		}
		keyID, _, err := split(string(s.Body))
		if err != nil || keyID != s.Args[0] {
			return nil, fmt.Errorf("%w: bad key-ring stanza", ErrMalformed)
		}
		fileKey, err := ri.ring.Decrypt(string(s.Body), fileAAD(ri.aad, s.Args[1]))
		if err != nil {
			return nil, err
		}
		ri.info = FileInfo{KeyID: keyID, Size: size}
		return []byte(fileKey), nil
	}
	return nil, fmt.Errorf("%w: %w", age.ErrIncorrectIdentity, ErrNoRingStanza)
}

// fileAAD binds a wrapped file key to its file and the size its header states.
func fileAAD(aad, size string) string { return "file|" + aad + "|" + size }
