package accounts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// legacyState is the JSON state file of earlier sandboxes (version 1),
// which kept everything in one file rewritten after every change.
type legacyState struct {
	Version      int                  `json:"version"`
	Applications []legacyApplication  `json:"applications"`
	Tokens       map[string]time.Time `json:"tokens"`
	TokensIssued int                  `json:"tokensIssued"`
}

type legacyApplication struct {
	ID          string          `json:"id"`
	ExternalID  string          `json:"externalId"`
	PricingCode string          `json:"pricingCode"`
	Status      Status          `json:"status"`
	Data        json.RawMessage `json:"data"`
	Linked      bool            `json:"linked"`
	Created     time.Time       `json:"created"`
	Updated     time.Time       `json:"updated"`
	Files       []fileRecord    `json:"files"`
	History     []StatusChange  `json:"history"`
}

// importLegacyState imports Options.ImportStateFile into the store, once:
// its applications, its tokens and, as issued, the pricing codes they use
// (the old sandbox took any code). The file is then renamed with the
// suffix ".imported", so a restart does not import it again.
func (s *Server) importLegacyState() error {
	path := s.opts.ImportStateFile
	if path == "" {
		return nil
	}
	st, found, err := readLegacyState(path)
	if !found || err != nil {
		return err
	}
	err = s.update(func(c *change) error {
		for _, la := range st.Applications {
			if err := importLegacyApp(c, la); err != nil {
				return err
			}
		}
		for tok, exp := range st.Tokens {
			if err := kit.Put(c.tx, bTokens, tokenKey(tok), exp); err != nil {
				return err
			}
		}
		return addMetaInt(c.tx, "tokensIssued", st.TokensIssued)
	})
	if err != nil {
		return fmt.Errorf("sandbox: import %s: %w", path, err)
	}
	if err := os.Rename(path, path+".imported"); err != nil {
		return fmt.Errorf("sandbox: imported %s but could not rename it: %w", path, err)
	}
	s.log.Info("sandbox state imported", "file", path, "applications", len(st.Applications))
	return nil
}

// readLegacyState reads a version 1 state file; found is false when there
// is none.
func readLegacyState(path string) (st legacyState, found bool, err error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, false, nil
	}
	if err != nil {
		return st, false, fmt.Errorf("sandbox: state file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&st); err != nil || st.Version != 1 {
		return st, false, fmt.Errorf("sandbox: %s is not a version 1 state file (%w); move it away to start afresh", path, err)
	}
	return st, true, nil
}

// importLegacyApp stores one application of the old file unless its id is
// taken, in the order it came, with its external id and, as issued, its
// pricing code when that is well formed and new.
func importLegacyApp(c *change, la legacyApplication) error {
	if c.tx.Bucket([]byte(bApps)).Get([]byte(la.ID)) != nil {
		return nil
	}
	a := &appRecord{ID: la.ID, ExternalID: la.ExternalID, PricingCode: la.PricingCode,
		Status: la.Status, Data: la.Data, Linked: la.Linked, Created: la.Created, Updated: la.Updated,
		Files: la.Files, History: la.History, Announced: la.Status == StatusBoarded}
	if a.Files == nil {
		a.Files = []fileRecord{}
	}
	if err := enlist(c, a); err != nil {
		return err
	}
	if c.tx.Bucket([]byte(bCodes)).Get([]byte(a.PricingCode)) == nil && checkPricingCode(a.PricingCode) == "" {
		if err := kit.Put(c.tx, bCodes, a.PricingCode, PricingCode{Code: a.PricingCode, Source: "imported", Issued: c.now}); err != nil {
			return err
		}
	}
	return saveApp(c.tx, a)
}
