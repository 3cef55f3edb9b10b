package validation

import "regexp"

var (
	ssnPattern = regexp.MustCompile(`^(\d{3}-\d{2}-\d{4}|\d{3} \d{2} \d{4}|\d{9})$`)
	einPattern = regexp.MustCompile(`^(\d{2}-\d{7}|\d{9})$`)
)

// IsSSNFormat reports whether s is written like a Social Security number: 123-45-6789,
// 123 45 6789 or 123456789. It does not check which numbers are issued; see IsSSNIssued.
func IsSSNFormat(s string) bool {
	return ssnPattern.MatchString(s)
}

// IsSSNIssued reports whether s is a well-formed SSN the Social Security Administration can
// issue: the area (first three digits) is not 000, 666 or 900–999, the group (next two) is
// not 00 and the serial (last four) is not 0000.
func IsSSNIssued(s string) bool {
	if !IsSSNFormat(s) {
		return false
	}
	d, _ := Digits(s)
	area, group, serial := d[:3], d[3:5], d[5:]
	return area != "000" && area != "666" && area[0] != '9' && group != "00" && serial != "0000"
}

// IsSSN reports whether s is a well-formed, issuable SSN.
func IsSSN(s string) bool { return IsSSNIssued(s) }

// IsEINFormat reports whether s is written like an Employer Identification Number: 12-3456789
// or 123456789. It does not check the prefix; see IsEINPrefixIssued.
func IsEINFormat(s string) bool {
	return einPattern.MatchString(s)
}

// invalidEINPrefixes are the two-digit EIN prefixes the IRS has never assigned to a campus
// (IRS "How EINs are assigned and valid EIN prefixes"). 00 also excludes the all-zero EIN.
var invalidEINPrefixes = map[string]bool{
	"00": true, "07": true, "08": true, "09": true, "17": true, "18": true, "19": true,
	"28": true, "29": true, "49": true, "69": true, "70": true, "78": true, "79": true,
	"89": true, "96": true, "97": true,
}

// IsEINPrefixIssued reports whether s is a well-formed EIN whose prefix the IRS issues.
func IsEINPrefixIssued(s string) bool {
	if !IsEINFormat(s) {
		return false
	}
	return !invalidEINPrefixes[s[:2]]
}

// IsEIN reports whether s is a well-formed EIN with an issued prefix.
func IsEIN(s string) bool { return IsEINPrefixIssued(s) }
