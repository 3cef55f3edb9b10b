package fieldcrypt

import "strings"

// maskDots stands for hidden digits. It is a fixed width so a mask never tells how long the
// number is.
const maskDots = "••••"

// Mask shows only the last four digits of a personal number, as "•••• 6789". Separators and
// other characters are ignored when counting digits. The empty string stays empty (nothing
// was entered); a value with fewer than five digits is masked entirely, as "••••", because
// showing four of four digits would reveal the whole number.
func Mask(value string) string {
	if value == "" {
		return ""
	}
	var digits []byte
	for i := 0; i < len(value); i++ {
		if c := value[i]; c >= '0' && c <= '9' {
			digits = append(digits, c)
		}
	}
	if len(digits) < 5 {
		return maskDots
	}
	var b strings.Builder
	b.WriteString(maskDots)
	b.WriteByte(' ')
	b.Write(digits[len(digits)-4:])
	return b.String()
}
