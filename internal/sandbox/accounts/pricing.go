package accounts

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// PricingCode is a pricing code the operator has issued to the partner:
// one per pricing model the partner offers.
type PricingCode struct {
	Code        string    `json:"code"`
	Description string    `json:"description,omitempty"`
	Source      string    `json:"source"` // configured, admin, first use
	Issued      time.Time `json:"issued"`
}

// pricingCodeShape is what the sandbox accepts as a code: what operators
// issue (letters, digits, dots, dashes, underscores), at most 64 long.
var pricingCodeShape = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// checkPricingCode returns why c cannot be a pricing code, or "".
func checkPricingCode(c string) string {
	if !pricingCodeShape.MatchString(c) {
		return "must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit"
	}
	return ""
}

// unknownPricingCode is the refusal of a code the operator never issued. A
// portal can show it as it is: it names the code and says what to do.
func unknownPricingCode(code string) *kit.APIError {
	return kit.FieldError("pricingCode", fmt.Sprintf("%q is not a pricing code issued to this partner; the operator issues one code per pricing model: use an issued code, or ask the operator to issue this one", code))
}

// acceptPricingCode checks the code of a new application, issuing it on
// first use when AnyPricingCode is set.
func (s *Server) acceptPricingCode(c *change, code string) error {
	if c.tx.Bucket([]byte(bCodes)).Get([]byte(code)) != nil {
		return nil
	}
	if !s.opts.AnyPricingCode {
		return unknownPricingCode(code)
	}
	if msg := checkPricingCode(code); msg != "" {
		return kit.FieldError("pricingCode", msg)
	}
	return kit.Put(c.tx, bCodes, code, PricingCode{Code: code, Source: "first use", Issued: c.now})
}

// issueConfiguredCodes issues the codes of Options.PricingCodes, once.
func (s *Server) issueConfiguredCodes() error {
	if len(s.opts.PricingCodes) == 0 {
		return nil
	}
	return s.update(func(c *change) error {
		for _, code := range s.opts.PricingCodes {
			if c.tx.Bucket([]byte(bCodes)).Get([]byte(code)) != nil {
				continue
			}
			if err := kit.Put(c.tx, bCodes, code, PricingCode{Code: code, Source: "configured", Issued: c.now}); err != nil {
				return err
			}
		}
		return nil
	})
}

// ErrPricingCode reports a code that cannot be issued.
var ErrPricingCode = errors.New("sandbox: invalid pricing code")

// IssuePricingCode issues a code, as the operator does at enrollment; it
// reports whether the code is new. Issuing a code again only updates its
// description.
func (s *Server) IssuePricingCode(code, description, source string) (PricingCode, bool, error) {
	if msg := checkPricingCode(code); msg != "" {
		return PricingCode{}, false, fmt.Errorf("%w: code %s", ErrPricingCode, msg)
	}
	if len(description) > defaultMaxLength {
		return PricingCode{}, false, fmt.Errorf("%w: description must be at most %d characters", ErrPricingCode, defaultMaxLength)
	}
	var out PricingCode
	created := false
	err := s.update(func(c *change) error {
		err := kit.Get(c.tx, bCodes, code, &out)
		switch {
		case errors.Is(err, kit.ErrNotFound):
			out, created = PricingCode{Code: code, Description: description, Source: source, Issued: c.now}, true
		case err != nil:
			return err
		case description == "" || description == out.Description:
			return nil
		default:
			out.Description = description
		}
		return kit.Put(c.tx, bCodes, code, out)
	})
	return out, created, err
}

// WithdrawPricingCode withdraws an issued code: new applications with it
// are refused; applications already started keep it.
func (s *Server) WithdrawPricingCode(code string) error {
	return s.update(func(c *change) error {
		if c.tx.Bucket([]byte(bCodes)).Get([]byte(code)) == nil {
			return fmt.Errorf("pricing code %s: %w", code, ErrNotFound)
		}
		return kit.Delete(c.tx, bCodes, code)
	})
}

// PricingCodes lists the issued codes in code order.
func (s *Server) PricingCodes() []PricingCode {
	out := []PricingCode{}
	_ = s.view(func(tx *bolt.Tx) error {
		return kit.Each(tx, bCodes, func(_ string, raw []byte) error {
			var pc PricingCode
			if decodeJSON(raw, &pc) == nil {
				out = append(out, pc)
			}
			return nil
		})
	})
	return out
}

// pricingCodeStatus maps an IssuePricingCode or WithdrawPricingCode error
// to a status.
func pricingCodeStatus(err error) int {
	switch {
	case errors.Is(err, ErrPricingCode):
		return http.StatusBadRequest
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}
