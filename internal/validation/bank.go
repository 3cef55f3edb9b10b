package validation

// IsRoutingNumberFormat reports whether s is 9 digits (spaces and dashes allowed). It does not
// check the ABA checksum; see IsABAChecksumValid.
func IsRoutingNumberFormat(s string) bool {
	d, ok := Digits(s)
	return ok && len(d) == 9
}

// IsABAChecksumValid reports whether s is a 9-digit routing number whose ABA checksum holds:
// 3·d1 + 7·d2 + d3 + 3·d4 + 7·d5 + d6 + 3·d7 + 7·d8 + d9 ≡ 0 (mod 10). The processor's test
// routing number 011401533 passes. All-zero numbers are rejected although they satisfy the
// sum, because no bank is numbered 000000000.
func IsABAChecksumValid(s string) bool {
	d, ok := Digits(s)
	if !ok || len(d) != 9 || d == "000000000" {
		return false
	}
	weights := [9]int{3, 7, 1, 3, 7, 1, 3, 7, 1}
	sum := 0
	for i, w := range weights {
		sum += w * int(d[i]-'0')
	}
	return sum%10 == 0
}

// IsBankAccountNumber reports whether s is a US deposit account number: 3 to 17 digits,
// spaces and dashes allowed (17 is the NACHA field width).
func IsBankAccountNumber(s string) bool {
	d, ok := Digits(s)
	return ok && len(d) >= 3 && len(d) <= 17
}
