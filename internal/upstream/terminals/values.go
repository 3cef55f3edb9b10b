package terminals

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Amount is money in cents. On the wire a request carries it as a decimal
// string ("12.34") and a result as a JSON number (12.34); both are read
// exactly, without floating point.
type Amount int64

// ParseAmount reads a decimal amount with at most two decimals, such as
// "12", "12.3" or "12.34". Signs, exponents and thousands separators are
// refused.
func ParseAmount(s string) (Amount, error) {
	whole, frac, hasDot := strings.Cut(strings.TrimSpace(s), ".")
	if whole == "" || len(frac) > 2 || (hasDot && frac == "") || !digits(whole) || !digits(frac) || len(whole) > 13 {
		return 0, fmt.Errorf("terminals: %q is not an amount with at most two decimals", s)
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	f, _ := strconv.ParseInt((frac + "00")[:2], 10, 64)
	return Amount(w*100 + f), nil
}

// digits reports whether s holds only ASCII digits (true for "").
func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// String formats the amount as the API's decimal text, "12.34".
func (a Amount) String() string {
	sign := ""
	if a < 0 {
		sign, a = "-", -a
	}
	return fmt.Sprintf("%s%d.%02d", sign, a/100, a%100)
}

// MarshalJSON writes the amount as a decimal string, as requests carry it.
func (a Amount) MarshalJSON() ([]byte, error) { return json.Marshal(a.String()) }

// UnmarshalJSON reads a JSON number or a decimal string; null and "" are 0.
// A number with more than two decimals is refused rather than rounded.
func (a *Amount) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	if s == "" || s == "null" {
		*a = 0
		return nil
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if w, f, ok := strings.Cut(s, "."); ok {
		// 12.340 from a decimal type: trailing zeros of the fraction say nothing.
		if f = strings.TrimRight(f, "0"); f == "" {
			s = w
		} else {
			s = w + "." + f
		}
	}
	v, err := ParseAmount(s)
	if err != nil {
		return err
	}
	if neg {
		v = -v
	}
	*a = v
	return nil
}

// flexBool reads true, false, "true", "false" (any case), "1", "0" and null.
type flexBool bool

func (f *flexBool) UnmarshalJSON(b []byte) error {
	switch strings.ToLower(string(bytes.Trim(b, `"`))) {
	case "true", "1", "yes":
		*f = true
	case "false", "0", "no", "", "null":
		*f = false
	default:
		return fmt.Errorf("terminals: %s is not a boolean", b)
	}
	return nil
}

// flexInt reads a JSON integer or an integer in a string; null and "" are 0.
type flexInt int

func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	if s == "" || s == "null" {
		*f = 0
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("terminals: %s is not an integer", b)
	}
	*f = flexInt(n)
	return nil
}

// dateRE matches the configuration's dates, /Date(<epoch ms>[+-]hhmm)/.
var dateRE = regexp.MustCompile(`^/Date\((-?\d+)([+-]\d{4})?\)/$`)

// cloudDate reads a /Date(<epoch_milliseconds>-0000)/ date. The
// milliseconds are UTC whatever the offset says; null and "" are the zero
// time.
type cloudDate time.Time

func (d *cloudDate) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("terminals: date %s is not a string", b)
	}
	if s == nil || *s == "" {
		*d = cloudDate{}
		return nil
	}
	m := dateRE.FindStringSubmatch(*s)
	if m == nil {
		return fmt.Errorf("terminals: %q is not a /Date(ms-0000)/ date", *s)
	}
	ms, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return fmt.Errorf("terminals: %q: %w", *s, err)
	}
	*d = cloudDate(time.UnixMilli(ms).UTC())
	return nil
}

// FormatDate writes t as the cloud writes configuration dates,
// /Date(<epoch_milliseconds>-0000)/. Tests and fakes use it.
func FormatDate(t time.Time) string {
	return fmt.Sprintf("/Date(%d-0000)/", t.UnixMilli())
}

// localLayout is the result's zone-less local timestamp,
// 2017-11-14T22:11:50.9330000 (the fraction is optional when read).
const localLayout = "2006-01-02T15:04:05.9999999"

// errNoTime is returned for an empty timestamp.
var errNoTime = errors.New("empty timestamp")

// parseLocal reads a zone-less local timestamp of a computer whose clock
// runs offsetHours from UTC (local = UTC + offset, so -5 is US Eastern
// standard time). A timestamp that does carry a zone keeps it.
func parseLocal(s string, offsetHours int) (time.Time, error) {
	if s == "" {
		return time.Time{}, errNoTime
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	zone := time.FixedZone(fmt.Sprintf("UTC%+d", offsetHours), offsetHours*3600)
	t, err := time.ParseInLocation(localLayout, s, zone)
	if err != nil {
		return time.Time{}, fmt.Errorf("terminals: %q is not a local timestamp: %w", s, err)
	}
	return t, nil
}
