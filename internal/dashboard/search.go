package dashboard

import (
	"strings"
	"unicode"

	"github.com/google/uuid"
)

// searchCondition adds the condition of a search term: an application's id or the
// processor's id for it, whole; else every word of the term starts a word of the DBA, legal
// name, contact name or contact e-mail, or a phone number (see the migration
// dashboard_search_words, whose split this mirrors). A term with neither letters nor digits
// matches nothing.
func searchCondition(w *sqlParts, term string) {
	if id, err := uuid.Parse(term); err == nil {
		w.add("(a.id = ? OR a.upstream_application_id = ?)", id, id.String())
		return
	}
	words := searchWords(term)
	if len(words) == 0 {
		w.add("false")
		return
	}
	w.add("a.search_words @@ ?::tsquery", prefixQuery(words))
}

// searchWords splits a term as the migration splits the searchable fields: lower case, at
// every ASCII character that is neither a letter, a digit nor "_". A term written like a
// phone number (digits with spaces, dashes, dots, brackets or a +) is one word of its
// digits, without a leading country code 1, because the migration keeps phone numbers as
// their digits.
func searchWords(term string) []string {
	if digits, ok := phoneDigits(term); ok {
		return []string{digits}
	}
	return strings.FieldsFunc(strings.ToLower(term), func(r rune) bool {
		return r < unicode.MaxASCII+1 && !isWordASCII(r)
	})
}

// isWordASCII reports whether the ASCII character r belongs in a word.
func isWordASCII(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_'
}

// minPhoneDigits is how many digits a term needs to be read as a phone number: fewer are
// more likely a house or shop number, searched as a word.
const minPhoneDigits = 4

// phoneDigits returns the digits of a term that looks like a phone number, "(415) 555-0100"
// or "+1 415 555 0100" alike.
func phoneDigits(term string) (string, bool) {
	var b strings.Builder
	for _, r := range term {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case strings.ContainsRune(" -.()+", r):
		default:
			return "", false
		}
	}
	digits := b.String()
	if len(digits) < minPhoneDigits {
		return "", false
	}
	if len(digits) == 11 && digits[0] == '1' {
		digits = digits[1:]
	}
	return digits, true
}

// prefixQuery is the text of a tsquery matching rows with a word starting with each of
// words. The words are quoted lexemes, taken as they are (no parser or dictionary runs on
// a tsquery's text); a quote inside one is doubled, although the split leaves none.
func prefixQuery(words []string) string {
	parts := make([]string, len(words))
	for i, word := range words {
		parts[i] = "'" + strings.ReplaceAll(word, "'", "''") + "':*"
	}
	return strings.Join(parts, " & ")
}
