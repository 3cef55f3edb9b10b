package validation

import (
	"fmt"
	"unicode/utf8"
)

// TextProblem is what is wrong with a piece of typed text, or TextOK.
type TextProblem int

// The problems CheckText finds, in the order it looks for them.
const (
	// TextOK: valid UTF-8 without control characters (beyond line breaks and tabs in
	// multi-line text).
	TextOK TextProblem = iota
	// TextNotUTF8: the bytes are not UTF-8, so the text cannot be stored or shown as typed.
	TextNotUTF8
	// TextControl: a NUL byte or another control character (C0, DEL, C1), which Postgres
	// refuses (NUL) or which hides in a page and corrupts what it is copied into.
	TextControl
	// TextLineBreak: a line break (CR, LF, U+2028, U+2029) or tab in text that is one line,
	// such as a name, which would split an e-mail header or a CSV row.
	TextLineBreak
)

// CheckText reports the first problem of s as typed text. A multi-line text (a textarea)
// may hold CR, LF and tabs; a one-line text may hold none of them.
func CheckText(s string, multiline bool) TextProblem {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return TextNotUTF8
		}
		i += size
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == '\u2028' || r == '\u2029':
			if !multiline {
				return TextLineBreak
			}
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return TextControl
		}
	}
	return TextOK
}

// IsText reports whether s is one line of valid text: UTF-8 with no control characters and no
// line breaks. It is the rule of names, e-mail addresses and anything that may end up in a
// header.
func IsText(s string) bool { return CheckText(s, false) == TextOK }

// IsMultilineText reports whether s is valid text that may span lines.
func IsMultilineText(s string) bool { return CheckText(s, true) == TextOK }

// TextMessage words a problem for the field labelled label ("Legal name"): a sentence for
// the person who typed it, saying what to change. It is "" for TextOK.
func TextMessage(label string, p TextProblem) string {
	switch p {
	case TextNotUTF8:
		return fmt.Sprintf("%s holds characters that are not valid text; type it again.", label)
	case TextControl:
		return fmt.Sprintf("%s holds an invisible control character (such as a NUL byte); remove it.", label)
	case TextLineBreak:
		return fmt.Sprintf("%s must be one line, without line breaks or tabs.", label)
	}
	return ""
}

// LengthMessage words a text that is longer than limit characters.
func LengthMessage(label string, limit int) string {
	return fmt.Sprintf("%s can be at most %d characters.", label, limit)
}

// TooLong reports whether s has more than limit characters (Unicode code points, as a person
// counts them and as validator's max tag counts). Invalid UTF-8 counts a byte per character.
func TooLong(s string, limit int) bool {
	if len(s) <= limit {
		return false
	}
	return utf8.RuneCountInString(s) > limit
}
