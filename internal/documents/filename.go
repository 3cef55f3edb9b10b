package documents

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxDisplayNameLength is the longest display name, in characters (runes),
// that SanitizeDisplayName returns.
const MaxDisplayNameLength = 120

// maxExtensionLength is the longest suffix treated as an extension worth
// keeping when a name is shortened; anything longer is ordinary text.
const maxExtensionLength = 10

// fallbackDisplayName is shown when nothing usable is left of a name.
const fallbackDisplayName = "document"

// SanitizeDisplayName turns a file name sent by a browser into a name that is
// safe to show and to offer on download. It is only ever displayed: storage
// keys never come from it. It keeps the last path element (splitting on both
// '/' and '\'), removes invalid UTF-8, control and format characters
// (including bidirectional overrides that disguise an extension, as in
// "invoice\u202Efdp.exe") and leading dots, collapses whitespace, and
// shortens the name to MaxDisplayNameLength characters while keeping its
// extension. It returns "document" when nothing is left.
//
// HTML and header escaping stay the job of templates and
// mime.FormatMediaType; this function does not encode.
func SanitizeDisplayName(name string) string {
	name = strings.ToValidUTF8(name, "")
	name = strings.Map(dropInvisible, name)
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Join(strings.Fields(name), " ")
	// Leading dots hide files on Unix; trailing dots and spaces are dropped
	// by Windows when saving, changing the name the user sees.
	name = strings.TrimLeft(name, ". ")
	name = strings.TrimRight(name, ". ")
	name = shorten(name, MaxDisplayNameLength)
	if name == "" {
		return fallbackDisplayName
	}
	return name
}

// dropInvisible removes characters that are invisible or change how the rest
// of the name is displayed. Whitespace of every kind becomes a space, to be
// collapsed later.
func dropInvisible(r rune) rune {
	switch {
	case unicode.IsSpace(r) || unicode.In(r, unicode.Zl, unicode.Zp):
		return ' '
	case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs):
		// Cf holds the bidirectional overrides and isolates (U+202A-U+202E,
		// U+2066-U+2069), marks (U+200E, U+200F, U+061C), zero-width
		// characters and the byte order mark.
		return -1
	case r == utf8.RuneError:
		return -1
	}
	return r
}

// shorten cuts name to at most limit runes, keeping a short extension.
func shorten(name string, limit int) string {
	if utf8.RuneCountInString(name) <= limit {
		return name
	}
	base, ext := name, ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		candidate := name[i:]
		if n := utf8.RuneCountInString(candidate) - 1; n >= 1 && n <= maxExtensionLength && !strings.Contains(candidate, " ") {
			base, ext = name[:i], candidate
		}
	}
	keep := limit - utf8.RuneCountInString(ext)
	runes := []rune(base)
	base = strings.TrimRight(string(runes[:min(keep, len(runes))]), ". ")
	return base + ext
}

// typeExtensions are the extensions a stored type goes by; the first is the one a download
// gets when the name has none of them.
var typeExtensions = map[string][]string{
	ContentTypePDF:  {".pdf"},
	ContentTypePNG:  {".png"},
	ContentTypeJPEG: {".jpg", ".jpeg"},
	ContentTypeTIFF: {".tiff", ".tif"},
	ContentTypeHEIC: {".heic"},
	ContentTypeHEIF: {".heif"},
}

// DownloadName is the name a download suggests: the display name with the extension of
// the stored (sniffed) type, so a PDF uploaded as "statement.html" saves as
// "statement.pdf" and opens in the right application, never as a web page.
func DownloadName(display, contentType string) string {
	exts, ok := typeExtensions[contentType]
	if !ok {
		return display
	}
	lower := strings.ToLower(display)
	for _, ext := range exts {
		if strings.HasSuffix(lower, ext) && len(display) > len(ext) {
			return display
		}
	}
	base := display
	if dot := strings.LastIndexByte(display, '.'); dot > 0 {
		base = display[:dot]
	}
	return shorten(base+exts[0], MaxDisplayNameLength)
}
