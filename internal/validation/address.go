package validation

import (
	"regexp"
	"slices"
	"strings"
)

// usStates holds the USPS codes of the 50 states, the District of Columbia and the five
// inhabited territories (Puerto Rico, Guam, US Virgin Islands, American Samoa, Northern
// Mariana Islands). Military (AA, AE, AP) and freely associated states are left out: the
// processor boards merchants, not mailing addresses.
var usStates = map[string]bool{
	"AL": true, "AK": true, "AZ": true, "AR": true, "CA": true, "CO": true, "CT": true,
	"DE": true, "FL": true, "GA": true, "HI": true, "ID": true, "IL": true, "IN": true,
	"IA": true, "KS": true, "KY": true, "LA": true, "ME": true, "MD": true, "MA": true,
	"MI": true, "MN": true, "MS": true, "MO": true, "MT": true, "NE": true, "NV": true,
	"NH": true, "NJ": true, "NM": true, "NY": true, "NC": true, "ND": true, "OH": true,
	"OK": true, "OR": true, "PA": true, "RI": true, "SC": true, "SD": true, "TN": true,
	"TX": true, "UT": true, "VT": true, "VA": true, "WA": true, "WV": true, "WI": true,
	"WY": true, "DC": true,
	"PR": true, "GU": true, "VI": true, "AS": true, "MP": true,
}

// USStateCodes returns the accepted state codes in alphabetical order, for building a <select>.
func USStateCodes() []string {
	codes := make([]string, 0, len(usStates))
	for c := range usStates {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}

// IsUSState reports whether s is an accepted two-letter state code, in either case.
func IsUSState(s string) bool {
	return len(s) == 2 && usStates[strings.ToUpper(s)]
}

var zipPattern = regexp.MustCompile(`^\d{5}(-\d{4})?$`)

// IsZIP reports whether s is a ZIP code written 12345 or 12345-6789.
func IsZIP(s string) bool {
	return zipPattern.MatchString(s)
}
