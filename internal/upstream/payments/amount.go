package payments

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Amount is a money amount in the API's form: a decimal string with two
// decimals, such as "10.00".
type Amount string

// amountPattern is the shape of an Amount.
var amountPattern = regexp.MustCompile(`^\d{1,9}\.\d{2}$`)

// Cents returns the Amount of c cents; c must not be negative.
func Cents(c int64) Amount {
	return Amount(fmt.Sprintf("%d.%02d", c/100, c%100))
}

// Valid reports whether a has the API's shape.
func (a Amount) Valid() bool { return amountPattern.MatchString(string(a)) }

// Cents returns a in cents.
func (a Amount) Cents() (int64, error) {
	if !a.Valid() {
		return 0, fmt.Errorf("payments: amount %q is not a decimal with two decimals", string(a))
	}
	whole, frac, _ := strings.Cut(string(a), ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, err
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	return w*100 + f, nil
}
