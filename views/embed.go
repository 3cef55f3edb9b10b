// Package views holds the portal's HTML templates, embedded into the binary and
// parsed once at start-up.
package views

import "embed"

// FS holds every template. Files under layout/ and names starting with "_" are
// shared partials; every other file is a page.
//
//go:embed */*.html
var FS embed.FS
