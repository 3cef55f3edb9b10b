package documents

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitizeDisplayName(t *testing.T) {
	long := strings.Repeat("a", 500)
	tests := []struct {
		name, in, want string
	}{
		{"plain name kept", "Bank statement March 2024.pdf", "Bank statement March 2024.pdf"},
		{"unicode kept", "Relevé bancaire – mars.pdf", "Relevé bancaire – mars.pdf"},
		{"unix traversal", "../../etc/passwd", "passwd"},
		{"absolute path", "/var/lib/portal/secret.pdf", "secret.pdf"},
		{"windows path", `C:\Users\rep\Desktop\licence.png`, "licence.png"},
		{"mixed separators", `..\../..\boot.ini`, "boot.ini"},
		{"trailing separator", "folder/", "document"},
		{"NUL truncation trick", "invoice.pdf\x00.exe", "invoice.pdf.exe"},
		{"control characters", "state\x01ment\x7f\x1b[31m.pdf", "statement[31m.pdf"},
		{"CR LF header injection", "a.pdf\r\nX-Evil: 1", "a.pdf X-Evil: 1"},
		{"right-to-left override", "invoice\u202Efdp.exe", "invoicefdp.exe"},
		{"bidi isolates and marks", "\u2067scan\u2069\u200F.jpg", "scan.jpg"},
		{"zero width characters", "pay\u200Bslip\uFEFF.pdf", "payslip.pdf"},
		{"leading dots", "...htaccess", "htaccess"},
		{"dot files", ".env", "env"},
		{"only dots", "..", "document"},
		{"trailing dots and spaces", "licence.pdf. . ", "licence.pdf"},
		{"whitespace collapsed", "  my \t\n scan \u00A0\u2003 file.png  ", "my scan file.png"},
		{"line separator", "a\u2028b.pdf", "a b.pdf"},
		{"invalid UTF-8", "re\xffport.pdf", "report.pdf"},
		{"private use", "id\uE000card.heic", "idcard.heic"},
		{"empty", "", "document"},
		{"spaces only", "   ", "document"},
		{"invisible only", "\u202E\u200B\x00", "document"},
		{"long name keeps extension", long + ".pdf", strings.Repeat("a", MaxDisplayNameLength-4) + ".pdf"},
		{"long name without extension", long, strings.Repeat("a", MaxDisplayNameLength)},
		{"long extension is text", "x." + long, "x." + strings.Repeat("a", MaxDisplayNameLength-2)},
		{"long multibyte name", strings.Repeat("é", 300) + ".jpeg", strings.Repeat("é", MaxDisplayNameLength-5) + ".jpeg"},
		{"cut does not end in a dot", strings.Repeat("a", MaxDisplayNameLength-5) + "." + long + ".pdf", strings.Repeat("a", MaxDisplayNameLength-5) + ".pdf"},
		{"html kept for the template to escape", "<b onmouseover=alert(1)>x.pdf", "<b onmouseover=alert(1)>x.pdf"},
		{"html closing tag is a path", "<script>alert(1)</script>.pdf", "script>.pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SanitizeDisplayName(tt.in)
			if got != tt.want {
				t.Errorf("SanitizeDisplayName(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > MaxDisplayNameLength {
				t.Errorf("result has %d runes, over %d", n, MaxDisplayNameLength)
			}
			if again := SanitizeDisplayName(got); again != got {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
		})
	}
}
