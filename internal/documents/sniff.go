package documents

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// sniffLength is how many leading bytes the type check looks at: enough for
// an ISO-BMFF ftyp box with many brands and for a page's opening tags.
const sniffLength = 4096

// Content types of the documents we accept.
const (
	ContentTypePDF  = "application/pdf"
	ContentTypePNG  = "image/png"
	ContentTypeJPEG = "image/jpeg"
	ContentTypeTIFF = "image/tiff"
	ContentTypeHEIC = "image/heic"
	ContentTypeHEIF = "image/heif"
)

// AcceptedFileTypes is the value for a file input's accept attribute. It only
// guides the browser's picker; Ingest checks the bytes whatever the name.
const AcceptedFileTypes = "application/pdf,image/png,image/jpeg,image/tiff,image/heic,image/heif," +
	".pdf,.png,.jpg,.jpeg,.tif,.tiff,.heic,.heif"

// detected is what sniff found: an accepted type with its usual extension, or
// otherwise a phrase naming what the file is, for the rejection message.
type detected struct {
	contentType string
	extension   string
	kind        string
}

func (d detected) accepted() bool { return d.contentType != "" }

// sniff identifies a file from its first bytes. Only the accepted types are
// checked closely; the others are named as well as we can so that the
// message tells the user what they actually picked.
func sniff(head []byte) detected {
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return detected{contentType: ContentTypePDF, extension: ".pdf"}
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return detected{contentType: ContentTypePNG, extension: ".png"}
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return detected{contentType: ContentTypeJPEG, extension: ".jpg"}
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		return detected{contentType: ContentTypeTIFF, extension: ".tiff"}
	case len(head) >= 12 && string(head[4:8]) == "ftyp":
		return sniffISOBMFF(head)
	}
	return detected{kind: describeOther(head)}
}

// HEIF brands for still images. "heic", "heix", "heim" and "heis" say the
// image is HEVC-coded (what phones call HEIC); "mif1" and "heif" only say the
// file is a HEIF image container.
var (
	heicBrands = []string{"heic", "heix", "heim", "heis"}
	heifBrands = []string{"mif1", "heif"}
	avifBrands = []string{"avif", "avis"}
	// Sequences (bursts, animations) are HEIF too, but not documents.
	heifSequenceBrands = []string{"msf1", "hevc", "hevx", "hevm", "hevs"}
)

// sniffISOBMFF reads the ftyp box that starts HEIF, AVIF, MP4 and QuickTime
// files: a 32-bit size, "ftyp", the major brand, a minor version, then
// compatible brands up to the box's end.
func sniffISOBMFF(head []byte) detected {
	major := string(head[8:12])
	brands := map[string]bool{major: true}
	end := min(int(binary.BigEndian.Uint32(head[0:4])), len(head))
	for i := 16; i+4 <= end; i += 4 {
		brands[string(head[i:i+4])] = true
	}
	has := func(list []string) bool {
		for _, b := range list {
			if brands[b] {
				return true
			}
		}
		return false
	}
	switch {
	case contains(avifBrands, major) || has(avifBrands) && contains(heifBrands, major):
		return detected{kind: "an AVIF image"}
	case contains(heicBrands, major), contains(heifBrands, major) && has(heicBrands):
		return detected{contentType: ContentTypeHEIC, extension: ".heic"}
	case contains(heifBrands, major):
		return detected{contentType: ContentTypeHEIF, extension: ".heif"}
	case contains(heifSequenceBrands, major):
		return detected{kind: "a HEIF image sequence (burst or animation)"}
	case major == "qt  ":
		return detected{kind: "a QuickTime video"}
	}
	return detected{kind: "a video or audio file"}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// signatures names common files people pick by mistake, by their leading
// bytes.
var signatures = []struct {
	prefix, kind string
}{
	{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an older Microsoft Office document (.doc, .xls or .ppt)"},
	{"MZ", "a Windows program"},
	{"\x7fELF", "a program"},
	{"\xfe\xed\xfa\xce", "a program"},
	{"\xfe\xed\xfa\xcf", "a program"},
	{"\xce\xfa\xed\xfe", "a program"},
	{"\xcf\xfa\xed\xfe", "a program"},
	{"\xca\xfe\xba\xbe", "a program"},
	{"#!", "a script"},
	{"GIF87a", "a GIF image"},
	{"GIF89a", "a GIF image"},
	{"\x1f\x8b", "a compressed archive"},
	{"BZh", "a compressed archive"},
	{"\xfd7zXZ\x00", "a compressed archive"},
	{"7z\xbc\xaf\x27\x1c", "a compressed archive"},
	{"Rar!\x1a\x07", "a compressed archive"},
	{"\x28\xb5\x2f\xfd", "a compressed archive"},
	{"{\\rtf", "a rich-text (RTF) document"},
	{"%!PS", "a PostScript file"},
	{"ID3", "an audio file"},
	{"\x00\x00\x01\x00", "an icon file"},
	{"II+\x00", "a BigTIFF image"},
	{"MM\x00+", "a BigTIFF image"},
	{"8BPS", "a Photoshop document"},
}

func describeOther(head []byte) string {
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")) {
		return describeZIP(head)
	}
	if len(head) >= 12 && string(head[0:4]) == "RIFF" {
		if string(head[8:12]) == "WEBP" {
			return "a WebP image"
		}
		return "an audio or video file"
	}
	for _, s := range signatures {
		if bytes.HasPrefix(head, []byte(s.prefix)) {
			return s.kind
		}
	}
	if kind := describeMarkup(head); kind != "" {
		return kind
	}
	if looksLikeText(head) {
		return "a text file"
	}
	return ""
}

// describeZIP names Office and OpenDocument files, which are ZIP archives,
// from the name of the first entry.
func describeZIP(head []byte) string {
	const nameOffset = 30
	if len(head) >= nameOffset {
		nameLen := int(binary.LittleEndian.Uint16(head[26:28]))
		name := head[nameOffset:min(nameOffset+nameLen, len(head))]
		switch {
		case bytes.HasPrefix(name, []byte("word/")):
			return "a Word document (.docx)"
		case bytes.HasPrefix(name, []byte("xl/")):
			return "an Excel spreadsheet (.xlsx)"
		case bytes.HasPrefix(name, []byte("ppt/")):
			return "a PowerPoint presentation (.pptx)"
		case string(name) == "[Content_Types].xml":
			return "a Microsoft Office document"
		case string(name) == "mimetype":
			return "an OpenDocument file"
		}
	}
	return "a ZIP archive"
}

// htmlOpeners are the tag starts that the WHATWG sniffing algorithm treats as
// HTML; a browser shown such a file may render it as a page.
var htmlOpeners = []string{
	"<!doctype html", "<html", "<head", "<script", "<iframe", "<h1", "<div", "<font",
	"<table", "<a", "<style", "<title", "<b", "<body", "<br", "<p", "<!--",
}

func describeMarkup(head []byte) string {
	text := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	text = bytes.TrimLeft(text, " \t\r\n\f")
	lower := bytes.ToLower(text[:min(len(text), 512)])
	if bytes.HasPrefix(lower, []byte("<svg")) ||
		bytes.HasPrefix(lower, []byte("<?xml")) && bytes.Contains(lower, []byte("<svg")) {
		return "an SVG image"
	}
	if bytes.HasPrefix(lower, []byte("<?xml")) {
		return "an XML file"
	}
	for _, opener := range htmlOpeners {
		if rest, ok := bytes.CutPrefix(lower, []byte(opener)); ok {
			// The tag name must end here ("<b>" or "<b "), not be a prefix
			// of a longer word such as "<body" for "<b".
			if opener == "<!--" || len(rest) == 0 || rest[0] == ' ' || rest[0] == '>' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r' {
				return "a web page (HTML)"
			}
		}
	}
	return ""
}

// looksLikeText reports whether head is UTF-8 (or UTF-16 with a byte order
// mark) without control characters other than common whitespace.
func looksLikeText(head []byte) bool {
	if bytes.HasPrefix(head, []byte("\xfe\xff")) || bytes.HasPrefix(head, []byte("\xff\xfe")) {
		return true
	}
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size <= 1 {
			// A rune cut by the end of the window is still text.
			return len(head)-i < utf8.UTFMax && !utf8.FullRune(head[i:])
		}
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r == 0x7f {
			return false
		}
		i += size
	}
	return true
}
