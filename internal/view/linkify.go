package view

import (
	"html/template"
	"regexp"
	"strings"
)

// webAddress finds http and https addresses in plain text.
var webAddress = regexp.MustCompile(`https?://[^\s<>"']+`)

// linkify escapes plain text (an e-mail's text part) and makes each web
// address in it a link that opens apart from the portal, without telling
// the target where it was followed from. Addresses under the reserved
// .invalid domain (placeholders) stay text. Punctuation that ends a sentence
// is left out of the address.
func linkify(text string) template.HTML {
	var b strings.Builder
	last := 0
	for _, m := range webAddress.FindAllStringIndex(text, -1) {
		start, end := m[0], m[1]
		for end > start && strings.ContainsRune(".,;:!?)]", rune(text[end-1])) {
			end--
		}
		b.WriteString(template.HTMLEscapeString(text[last:start]))
		if host := strings.SplitN(strings.SplitN(text[start:end], "://", 2)[1], "/", 2)[0]; strings.HasSuffix(host, ".invalid") {
			// A placeholder (the outbox's sealed links) is no address to follow.
			b.WriteString(template.HTMLEscapeString(text[start:end]))
			last = end
			continue
		}
		addr := template.HTMLEscapeString(text[start:end])
		b.WriteString(`<a href="` + addr + `" rel="noopener noreferrer" target="_blank">` + addr + `</a>`)
		last = end
	}
	b.WriteString(template.HTMLEscapeString(text[last:]))
	return template.HTML(b.String()) // every piece of text was escaped above
}
