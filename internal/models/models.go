// Package models holds the GORM row types of the portal's tables. The schema itself
// is defined by the SQL files in migrations/; these structs only mirror it.
package models

import "errors"

// ErrNotFound is returned by stores when a row does not exist or is not visible
// to the caller. Stores never return (nil, nil).
var ErrNotFound = errors.New("not found")
