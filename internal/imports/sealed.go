package imports

import (
	"strconv"

	keyring "github.com/payportal/portal/internal/keys"
)

// SealedColumns are the imports' sealed values, for the key ring's registry
// (internal/keys): each uploaded row's cells, kept until the batch expires.
func SealedColumns() []keyring.Column {
	return []keyring.Column{
		keyring.SealedColumn("import_rows", "cells", []string{"batch_id", "row_number"}, func(k keyring.Key) string {
			number, _ := strconv.Atoi(k[1])
			return cellsAAD(k.UUID(0), number)
		}),
	}
}
