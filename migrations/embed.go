// Package migrations holds the portal's schema as timestamped SQL files run by goose.
package migrations

import "embed"

// FS holds every migration file; goose reads them in name order.
//
//go:embed *.sql
var FS embed.FS
