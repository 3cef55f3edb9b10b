package models

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
)

// JSON is a jsonb column holding raw JSON text.
type JSON json.RawMessage

// Value stores the JSON, or SQL NULL when empty.
func (j JSON) Value() (driver.Value, error) {
	if len(j) == 0 {
		return nil, nil
	}
	return string(j), nil
}

// Scan reads a jsonb column.
func (j *JSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = nil
	case []byte:
		*j = append((*j)[:0], v...)
	case string:
		*j = JSON(v)
	default:
		return fmt.Errorf("models.JSON: cannot scan %T", src)
	}
	return nil
}

// MarshalJSON returns the raw JSON.
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j) == 0 {
		return []byte("null"), nil
	}
	return j, nil
}

// UnmarshalJSON keeps a copy of the raw JSON.
func (j *JSON) UnmarshalJSON(b []byte) error {
	*j = append((*j)[:0], b...)
	return nil
}
