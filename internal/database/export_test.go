package database

// SchemaRenewals is how many times this handle renewed its connections after
// another instance migrated.
func (db *DB) SchemaRenewals() int64 { return db.renewals.n.Load() }
