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

// neverIssuedSSNs are numbers that pass the SSA's rules of form but belong to nobody: the
// numbers printed in advertising, which the SSA voided (078-05-1120 on a 1938 wallet insert,
// 219-09-9999 in a 1940 Social Security Board pamphlet), and 123-45-6789, the example
// number the SSA never issued, which verification services refuse. The SSA's own range for
// advertising, 987-65-4320 to 987-65-4329, is in the 900s, refused already.
var neverIssuedSSNs = map[string]bool{"078051120": true, "219099999": true, "123456789": true}

// IsSSNIssued reports whether s is a well-formed SSN the Social Security Administration can
// have issued (POMS RM 10201.035): the area (first three digits) is not 000, 666 or
// 900–999, the group (next two) is not 00, the serial (last four) is not 0000, and it is not
// a number published in advertising (neverIssuedSSNs).
func IsSSNIssued(s string) bool {
	if !IsSSNFormat(s) {
		return false
	}
	d, _ := Digits(s)
	area, group, serial := d[:3], d[3:5], d[5:]
	return area != "000" && area != "666" && area[0] != '9' && group != "00" && serial != "0000" && !neverIssuedSSNs[d]
}

// IsSSN reports whether s is a well-formed, issuable SSN.
func IsSSN(s string) bool { return IsSSNIssued(s) }

// IsITIN reports whether s is written like an SSN and is an Individual Taxpayer
// Identification Number the IRS issues to a person who cannot have an SSN: area 900–999,
// middle digits 50–65, 70–88, 90–92 or 94–99 (93 is an adoption number, the rest the IRS's
// own), serial not 0000, and not in the SSA's range for advertising (987-65-4320 to 4329).
func IsITIN(s string) bool {
	if !IsSSNFormat(s) {
		return false
	}
	d, _ := Digits(s)
	if d[0] != '9' || d[5:] == "0000" || d[:8] == "98765432" {
		return false
	}
	g := (int(d[3]-'0'))*10 + int(d[4]-'0')
	return g >= 50 && g <= 65 || g >= 70 && g <= 88 || g >= 90 && g <= 92 || g >= 94
}

// IsSSNOrITIN reports whether s is an issuable SSN or an ITIN: what a person may give where
// the processor asks for their SSN, if they have none.
func IsSSNOrITIN(s string) bool { return IsSSNIssued(s) || IsITIN(s) }

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
