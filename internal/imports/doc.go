// Package imports is the bulk import of drafts from a CSV file: a template of the
// columns (laid out from the drafts field registry), the upload, a mapping of a file's
// columns to fields when its header does not match, a preview that checks every row by
// the form's own rules (drafts.Draft.Validate) and finds duplicates, and the import of
// the valid rows as drafts owned by the chosen rep, by a River job with a progress bar.
//
// The uploaded file is never stored: it is read as it arrives, and each row is sealed
// with the key ring as soon as it is parsed (import_rows.cells). A batch expires an hour
// after its upload. Duplicates are found by TIN, through the applications' keyed blind
// index (never by decrypting), and by legal name, among the applications the importing
// user may see; the user chooses to skip them or to update them. Importing a file twice
// creates nothing new. The rows that are not imported can be downloaded with the reason,
// their SSNs, TINs and account numbers masked.
//
// backfill.go fills in the blind index of applications stored before it existed, and
// rewrites indexes computed under a key that is no longer the active one.
package imports
