// Package assets holds the portal's static files. vendor/ is filled by the
// Makefile from npm packages (htmx, Pico CSS) and is not committed.
package assets

import "embed"

// FS holds every static file.
//
//go:embed css img js vendor
var FS embed.FS
