package payments

import (
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/fieldcrypt"
)

// A form token is minted when a payment form is rendered. It carries the id
// the transaction will have (a v4 UUID, the externalTransactionId and
// idempotency key), sealed with the key ring and bound to the merchant, the
// user and what the form does, so it cannot be forged, moved to another
// merchant or replayed by someone else. A form sent twice carries one id: one
// transaction. Sealing needs no table and survives a restart.

// formTokenLifetime bounds how long a rendered form may be sent.
const formTokenLifetime = 12 * time.Hour

// FormTokens mints and reads form tokens.
type FormTokens struct {
	ring *fieldcrypt.KeyRing
	now  func() time.Time
}

// NewFormTokens returns the minter on ring.
func NewFormTokens(ring *fieldcrypt.KeyRing, now func() time.Time) *FormTokens {
	return &FormTokens{ring: ring, now: now}
}

func tokenAAD(merchantID, userID uuid.UUID, purpose string) string {
	return "payment-form:" + merchantID.String() + ":" + userID.String() + ":" + purpose
}

// Mint returns a token for a new transaction of purpose ("pay", "reverse:<id>",
// ...) by userID on merchantID.
func (f *FormTokens) Mint(merchantID, userID uuid.UUID, purpose string) (string, error) {
	plain := uuid.NewString() + "|" + strconv.FormatInt(f.now().Unix(), 10)
	return f.ring.Encrypt(plain, tokenAAD(merchantID, userID, purpose))
}

// errFormToken refuses a token that this portal did not mint for this form.
var errFormToken = apperr.New(apperr.KindInvalid, "This form did not come from this page. Reload the page and enter the payment again.")

// Read opens a token and returns the transaction id it carries and whether it
// has expired. A token that is not this portal's for this form is refused.
func (f *FormTokens) Read(token string, merchantID, userID uuid.UUID, purpose string) (uuid.UUID, bool, error) {
	if token == "" {
		return uuid.Nil, false, errFormToken
	}
	plain, err := f.ring.Decrypt(token, tokenAAD(merchantID, userID, purpose))
	if err != nil {
		return uuid.Nil, false, errFormToken
	}
	idText, unixText, ok := strings.Cut(plain, "|")
	id, err := uuid.Parse(idText)
	if !ok || err != nil {
		return uuid.Nil, false, errFormToken
	}
	unix, err := strconv.ParseInt(unixText, 10, 64)
	if err != nil {
		return uuid.Nil, false, errFormToken
	}
	expired := f.now().Sub(time.Unix(unix, 0)) > formTokenLifetime
	return id, expired, nil
}
