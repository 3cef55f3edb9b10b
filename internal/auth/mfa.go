package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"image/png"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// TOTP parameters: RFC 6238 defaults, which every authenticator app reads.
const (
	totpPeriod = 30
	totpDigits = otp.DigitsSix
	// totpSkew accepts the code of the step before and after the current
	// one, for clocks that drift and codes typed as they change.
	totpSkew = 1
	// recoveryCodeCount recovery codes are issued at once.
	recoveryCodeCount = 10
)

// MFAPolicy says whether a user must sign in with a second factor. The
// portal requires it of admins and of everyone who can take or reverse
// payments (PCI DSS 8.4.2); others may turn it on for themselves.
type MFAPolicy func(ctx context.Context, u *models.User) (bool, error)

// AdminsNeedMFA is the policy before any merchant user exists: admins only.
func AdminsNeedMFA(_ context.Context, u *models.User) (bool, error) {
	return u.Role == models.RoleAdmin, nil
}

// ErrWrongCode is the one answer for a wrong, reused or expired code.
var ErrWrongCode = apperr.New(apperr.KindInvalid, "That code is not right. Enter the 6-digit code your authenticator app shows now, or one of your recovery codes.")

// Enrolment is what a user needs to add the portal to an authenticator app.
type Enrolment struct {
	// Secret is the base32 secret, grouped by four for typing by hand.
	Secret string
	// URL is the otpauth:// URL the QR code holds.
	URL string
	// QRCode is a PNG data: URL of the QR code, which we made ourselves and
	// so may be used as an image source.
	QRCode template.URL
}

// mfaAAD binds a sealed secret to its user, so it cannot be moved to another.
func mfaAAD(u *models.User) string { return "users/" + u.ID.String() + "/mfa_secret" }

// BeginEnrolment returns the secret for u to add to an authenticator app,
// creating it when u has none waiting. A user whose MFA is on already gets
// an error: they must turn it off (or an admin reset it) first.
func (s *Service) BeginEnrolment(ctx context.Context, u *models.User) (*Enrolment, error) {
	if u.MFAEnabled() {
		return nil, apperr.New(apperr.KindConflict, "Two-step sign-in is already on for this account.")
	}
	if s.ring == nil {
		return nil, errors.New("auth: no key ring to seal MFA secrets")
	}
	var secret string
	if u.MFASecret != nil && *u.MFASecret != "" {
		plain, err := s.ring.Decrypt(*u.MFASecret, mfaAAD(u))
		if err != nil {
			return nil, fmt.Errorf("auth: open MFA secret: %w", err)
		}
		secret = plain
	} else {
		key, err := totp.Generate(totp.GenerateOpts{Issuer: s.issuer, AccountName: u.Email, Period: totpPeriod, Digits: totpDigits, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			return nil, err
		}
		secret = key.Secret()
		sealed, err := s.ring.Encrypt(secret, mfaAAD(u))
		if err != nil {
			return nil, err
		}
		if err := s.users.SetPendingMFASecret(ctx, u.ID, sealed, s.now()); err != nil {
			return nil, err
		}
		u.MFASecret = &sealed
	}
	return enrolmentFor(s.issuer, u.Email, secret)
}

func enrolmentFor(issuer, account, secret string) (*Enrolment, error) {
	q := url.Values{"secret": {secret}, "issuer": {issuer}, "period": {"30"}, "digits": {"6"}, "algorithm": {"SHA1"}}
	u := url.URL{Scheme: "otpauth", Host: "totp", Path: "/" + issuer + ":" + account, RawQuery: q.Encode()}
	key, err := otp.NewKeyFromURL(u.String())
	if err != nil {
		return nil, err
	}
	img, err := key.Image(240, 240)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	var grouped []string
	for i := 0; i < len(secret); i += 4 {
		grouped = append(grouped, secret[i:min(i+4, len(secret))])
	}
	return &Enrolment{Secret: strings.Join(grouped, " "), URL: key.URL(),
		QRCode: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()))}, nil
}

// ConfirmEnrolment turns MFA on once u typed a valid code of the waiting
// secret, and returns fresh recovery codes to show once.
func (s *Service) ConfirmEnrolment(ctx context.Context, u *models.User, code, clientIP string) ([]string, error) {
	if u.MFAEnabled() || u.MFASecret == nil {
		return nil, apperr.New(apperr.KindConflict, "Start setting up two-step sign-in again.")
	}
	return s.enable(ctx, u, code, clientIP, audit.ActionMFAEnrolled)
}

// enable checks a code of u's secret, then turns MFA on (if it is not yet) with fresh
// recovery codes, recorded as action; a wrong code is recorded as a failed attempt.
func (s *Service) enable(ctx context.Context, u *models.User, code, clientIP, action string) ([]string, error) {
	step, err := s.checkTOTP(ctx, u, code, clientIP)
	if err != nil {
		return nil, s.recordWrongCode(ctx, u, action, err)
	}
	codes, hashes := newRecoveryCodes()
	err = s.db.InTx(ctx, func(tx database.Tx) error {
		if err := NewStore(tx.Gorm()).EnableMFA(ctx, u.ID, step, hashes, s.now()); err != nil {
			return err
		}
		return s.record(ctx, tx, u, u.ID, action, audit.AccountDetails{})
	})
	if err != nil {
		return nil, s.recordWrongCode(ctx, u, action, err) // a code used meanwhile: a replay
	}
	return codes, nil
}

// VerifySecondFactor checks the code u typed at sign-in: a TOTP code of the
// current step (not used before) or an unused recovery code, which is then
// spent. Failures count towards the same throttle as passwords.
func (s *Service) VerifySecondFactor(ctx context.Context, u *models.User, code, clientIP string) error {
	if !u.MFAEnabled() {
		return apperr.New(apperr.KindConflict, "Two-step sign-in is not set up for this account.")
	}
	code = strings.TrimSpace(code)
	if isTOTPShaped(code) {
		step, err := s.checkTOTP(ctx, u, code, clientIP)
		if err != nil {
			return err
		}
		return s.users.AdvanceMFAStep(ctx, u.ID, step)
	}
	if wait, err := s.throttle.retryAfter(ctx, mfaKey(u), clientIP, s.now()); err != nil {
		return err
	} else if wait > 0 {
		return &ThrottledError{RetryAfter: wait}
	}
	spent, err := s.users.SpendRecoveryCode(ctx, u.ID, hashRecoveryCode(code), s.now())
	if err != nil {
		return err
	}
	if !spent {
		if err := s.throttle.recordFailure(ctx, mfaKey(u), clientIP, s.now()); err != nil {
			return err
		}
		return ErrWrongCode
	}
	return s.throttle.forgetAccount(ctx, mfaKey(u))
}

// RegenerateRecoveryCodes replaces u's recovery codes after checking a
// current TOTP code.
func (s *Service) RegenerateRecoveryCodes(ctx context.Context, u *models.User, code, clientIP string) ([]string, error) {
	if !u.MFAEnabled() {
		return nil, apperr.New(apperr.KindConflict, "Two-step sign-in is not set up for this account.")
	}
	return s.enable(ctx, u, code, clientIP, audit.ActionRecoveryCodesRenewed)
}

// TurnOffMFA removes u's second factor after checking a current code. It is
// refused when the policy requires MFA of u.
func (s *Service) TurnOffMFA(ctx context.Context, u *models.User, code, clientIP string) error {
	required, err := s.mfaPolicy(ctx, u)
	if err != nil {
		return err
	}
	if required {
		return apperr.New(apperr.KindConflict, "Your role requires two-step sign-in, so it cannot be turned off.")
	}
	if _, err := s.checkTOTP(ctx, u, code, clientIP); err != nil {
		return s.recordWrongCode(ctx, u, audit.ActionMFATurnedOff, err)
	}
	return s.resetMFA(ctx, u, u.ID, audit.ActionMFATurnedOff)
}

// ResetMFA removes a user's second factor for them (a lost phone), ends
// their sessions, and makes them enrol again at their next sign-in when
// their role requires it. actor, the admin, is recorded.
func (s *Service) ResetMFA(ctx context.Context, actor *models.User, id uuid.UUID) error {
	return s.resetMFA(ctx, actor, id, audit.ActionMFAReset)
}

func (s *Service) resetMFA(ctx context.Context, actor *models.User, id uuid.UUID, action string) error {
	return s.db.InTx(ctx, func(tx database.Tx) error {
		if err := NewStore(tx.Gorm()).ResetMFA(ctx, id, s.now()); err != nil {
			return err
		}
		return s.record(ctx, tx, actor, id, action, audit.AccountDetails{})
	})
}

// MFARequired applies the policy to u.
func (s *Service) MFARequired(ctx context.Context, u *models.User) (bool, error) {
	return s.mfaPolicy(ctx, u)
}

// checkTOTP verifies a code against u's secret and returns its time step.
// A code of a step already used is refused (no replay).
func (s *Service) checkTOTP(ctx context.Context, u *models.User, code, clientIP string) (int64, error) {
	now := s.now()
	if wait, err := s.throttle.retryAfter(ctx, mfaKey(u), clientIP, now); err != nil {
		return 0, err
	} else if wait > 0 {
		return 0, &ThrottledError{RetryAfter: wait}
	}
	secret, err := s.ring.Decrypt(*u.MFASecret, mfaAAD(u))
	if err != nil {
		return 0, fmt.Errorf("auth: open MFA secret: %w", err)
	}
	step, ok := matchTOTP(secret, strings.TrimSpace(code), now, u.MFALastStep)
	if !ok {
		if err := s.throttle.recordFailure(ctx, mfaKey(u), clientIP, now); err != nil {
			return 0, err
		}
		return 0, ErrWrongCode
	}
	return step, s.throttle.forgetAccount(ctx, mfaKey(u))
}

// matchTOTP returns the step whose code equals code, within the skew and
// newer than lastStep.
func matchTOTP(secret, code string, now time.Time, lastStep int64) (int64, bool) {
	if !isTOTPShaped(code) {
		return 0, false
	}
	current := now.Unix() / totpPeriod
	for d := int64(-totpSkew); d <= totpSkew; d++ {
		step := current + d
		if step <= lastStep {
			continue
		}
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*totpPeriod, 0),
			totp.ValidateOpts{Period: totpPeriod, Digits: totpDigits, Algorithm: otp.AlgorithmSHA1})
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step, true
		}
	}
	return 0, false
}

// TOTPCode returns the code of secret at t, for tests and the test harness.
func TOTPCode(secret string, t time.Time) string {
	c, _ := totp.GenerateCodeCustom(secret, t, totp.ValidateOpts{Period: totpPeriod, Digits: totpDigits, Algorithm: otp.AlgorithmSHA1})
	return c
}

func isTOTPShaped(code string) bool {
	if len(code) != 6 {
		return false
	}
	for _, r := range code {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// mfaKey is the throttle key of u's second-factor attempts.
func mfaKey(u *models.User) string { return "mfa:" + u.ID.String() }

// newRecoveryCodes returns recovery codes to show and their hashes to store.
// Each has 50 bits from crypto/rand in a form easy to copy: xxxxx-xxxxx.
func newRecoveryCodes() (codes, hashes []string) {
	const alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
	for range recoveryCodeCount {
		b := make([]byte, 10)
		_, _ = rand.Read(b)
		out := make([]byte, 10)
		for i, v := range b {
			out[i] = alphabet[int(v)%len(alphabet)]
		}
		c := string(out[:5]) + "-" + string(out[5:])
		codes = append(codes, c)
		hashes = append(hashes, hashRecoveryCode(c))
	}
	return codes, hashes
}

// hashRecoveryCode normalises a typed recovery code and hashes it. The codes
// carry 50 random bits, so a plain SHA-256 is enough.
func hashRecoveryCode(code string) string {
	c := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(code), " ", ""))
	if len(c) == 10 && !strings.Contains(c, "-") {
		c = c[:5] + "-" + c[5:]
	}
	return hashToken(c)
}
