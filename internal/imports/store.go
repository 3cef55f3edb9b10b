package imports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

const batchColumns = `id, created_by, owner_id, file_name, headers, mapping, status, on_duplicate, row_count,
	created_at, expires_at, import_started_at, import_finished_at`

func scanBatch(row pgx.Row) (*Batch, error) {
	var b Batch
	err := row.Scan(&b.ID, &b.CreatedBy, &b.OwnerID, &b.FileName, &b.Headers, &b.Mapping, &b.Status, &b.OnDuplicate,
		&b.RowCount, &b.CreatedAt, &b.ExpiresAt, &b.ImportStartedAt, &b.ImportFinishedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read import batch: %w", err)
	}
	return &b, nil
}

func insertBatch(ctx context.Context, tx pgx.Tx, b *Batch) error {
	_, err := tx.Exec(ctx, `INSERT INTO import_batches (`+batchColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		b.ID, b.CreatedBy, b.OwnerID, b.FileName, b.Headers, b.Mapping, string(b.Status), string(b.OnDuplicate), b.RowCount,
		b.CreatedAt, b.ExpiresAt, b.ImportStartedAt, b.ImportFinishedAt)
	if err != nil {
		return fmt.Errorf("store import batch: %w", err)
	}
	return nil
}

func getBatch(ctx context.Context, q database.Querier, id uuid.UUID, forUpdate bool) (*Batch, error) {
	lock := ""
	if forUpdate {
		lock = " FOR UPDATE"
	}
	return scanBatch(q.QueryRow(ctx, `SELECT `+batchColumns+` FROM import_batches WHERE id = $1`+lock, id))
}

// recentBatches lists a user's batches that have not expired, newest first.
func recentBatches(ctx context.Context, q database.Querier, user uuid.UUID, now time.Time) ([]Batch, error) {
	rows, err := q.Query(ctx, `SELECT `+batchColumns+` FROM import_batches
		WHERE created_by = $1 AND (expires_at > $2 OR status = 'importing') ORDER BY created_at DESC LIMIT 20`, user, now)
	if err != nil {
		return nil, fmt.Errorf("list import batches: %w", err)
	}
	defer rows.Close()
	var out []Batch
	for rows.Next() {
		b, err := scanBatch(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *b)
	}
	return out, rows.Err()
}

func updateBatch(ctx context.Context, q database.Querier, b *Batch) error {
	_, err := q.Exec(ctx, `UPDATE import_batches SET owner_id = $2, mapping = $3, status = $4, on_duplicate = $5, row_count = $6,
			import_started_at = $7, import_finished_at = $8 WHERE id = $1`,
		b.ID, b.OwnerID, b.Mapping, string(b.Status), string(b.OnDuplicate), b.RowCount, b.ImportStartedAt, b.ImportFinishedAt)
	if err != nil {
		return fmt.Errorf("update import batch: %w", err)
	}
	return nil
}

// storedRow is a row as stored: sealed cells and, once checked, the check.
type storedRow struct {
	Number      int
	Cells       string
	Check       *string
	Errors      []RowError
	DuplicateOf *uuid.UUID
	Outcome     *string
	Note        *string
	AppID       *uuid.UUID
}

const rowColumns = `row_number, cells, check_status, errors, duplicate_of, outcome, outcome_note, application_id`

func scanRows(rows pgx.Rows) ([]storedRow, error) {
	defer rows.Close()
	var out []storedRow
	for rows.Next() {
		var r storedRow
		var errs []byte
		if err := rows.Scan(&r.Number, &r.Cells, &r.Check, &errs, &r.DuplicateOf, &r.Outcome, &r.Note, &r.AppID); err != nil {
			return nil, fmt.Errorf("read import rows: %w", err)
		}
		if len(errs) > 0 {
			if err := json.Unmarshal(errs, &r.Errors); err != nil {
				return nil, fmt.Errorf("read import row errors: %w", err)
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// rowsAfter reads up to limit rows of a batch after row number after, in order; where
// narrows them ("" for all); lock takes them for update.
func rowsAfter(ctx context.Context, q database.Querier, batch uuid.UUID, after, limit int, where string, lock bool) ([]storedRow, error) {
	if where != "" {
		where = " AND " + where
	}
	forUpdate := ""
	if lock {
		forUpdate = " FOR UPDATE"
	}
	rows, err := q.Query(ctx, `SELECT `+rowColumns+` FROM import_rows WHERE batch_id = $1 AND row_number > $2`+where+`
		ORDER BY row_number LIMIT $3`+forUpdate, batch, after, limit)
	if err != nil {
		return nil, fmt.Errorf("read import rows: %w", err)
	}
	return scanRows(rows)
}

// saveChecks stores the checks of rows in one statement.
func saveChecks(ctx context.Context, q database.Querier, batch uuid.UUID, checks []rowCheck) error {
	nums := make([]int32, len(checks))
	statuses := make([]string, len(checks))
	errs := make([]*string, len(checks))
	dups := make([]*uuid.UUID, len(checks))
	for i, c := range checks {
		nums[i], statuses[i], dups[i] = int32(c.Number), c.Status, c.DuplicateOf
		if len(c.Errors) > 0 {
			b, err := json.Marshal(c.Errors)
			if err != nil {
				return err
			}
			s := string(b)
			errs[i] = &s
		}
	}
	_, err := q.Exec(ctx, `UPDATE import_rows r SET check_status = v.status, errors = v.errors::jsonb, duplicate_of = v.dup,
			outcome = NULL, outcome_note = NULL, application_id = NULL
		FROM unnest($2::int[], $3::text[], $4::text[], $5::uuid[]) AS v(n, status, errors, dup)
		WHERE r.batch_id = $1 AND r.row_number = v.n`, batch, nums, statuses, errs, dups)
	if err != nil {
		return fmt.Errorf("store import checks: %w", err)
	}
	return nil
}

// Counts are a batch's rows by what became of them.
type Counts struct {
	Valid, Invalid, Duplicate                              int
	Created, Updated, Unchanged, Skipped, Refused, Pending int
}

// ToImport is how many rows the import acts on: the valid ones and the duplicates.
func (c Counts) ToImport() int { return c.Valid + c.Duplicate }

// Processed is how many of those the import has done.
func (c Counts) Processed() int {
	return c.Created + c.Updated + c.Unchanged + c.Skipped + c.Refused
}

// Rejected is how many rows were not imported: invalid, or refused by the import.
func (c Counts) Rejected() int { return c.Invalid + c.Refused }

func countRows(ctx context.Context, q database.Querier, batch uuid.UUID) (Counts, error) {
	rows, err := q.Query(ctx, `SELECT COALESCE(check_status, ''), COALESCE(outcome, ''), count(*)::int FROM import_rows
		WHERE batch_id = $1 GROUP BY 1, 2`, batch)
	if err != nil {
		return Counts{}, fmt.Errorf("count import rows: %w", err)
	}
	defer rows.Close()
	var c Counts
	for rows.Next() {
		var check, outcome string
		var n int
		if err := rows.Scan(&check, &outcome, &n); err != nil {
			return Counts{}, err
		}
		switch check {
		case checkValid:
			c.Valid += n
		case checkInvalid:
			c.Invalid += n
		case checkDuplicate:
			c.Duplicate += n
		}
		switch outcome {
		case outcomeCreated:
			c.Created += n
		case outcomeUpdated:
			c.Updated += n
		case outcomeUnchanged:
			c.Unchanged += n
		case outcomeSkipped:
			c.Skipped += n
		case outcomeRefused:
			c.Refused += n
		case "":
			if check != checkInvalid {
				c.Pending += n
			}
		}
	}
	return c, rows.Err()
}

// rowOutcome is what the import did with a row.
type rowOutcome struct {
	Number  int
	Outcome string
	Note    string
	AppID   *uuid.UUID
	Errors  []RowError
}

// saveOutcomes records what the import did with rows, in one statement; errors found
// by the import replace those of the check.
func saveOutcomes(ctx context.Context, tx pgx.Tx, batch uuid.UUID, outcomes []rowOutcome) error {
	if len(outcomes) == 0 {
		return nil
	}
	nums := make([]int32, len(outcomes))
	kinds := make([]string, len(outcomes))
	notes := make([]string, len(outcomes))
	apps := make([]*uuid.UUID, len(outcomes))
	errs := make([]*string, len(outcomes))
	for i, o := range outcomes {
		nums[i], kinds[i], notes[i], apps[i] = int32(o.Number), o.Outcome, o.Note, o.AppID
		if len(o.Errors) > 0 {
			b, err := json.Marshal(o.Errors)
			if err != nil {
				return err
			}
			s := string(b)
			errs[i] = &s
		}
	}
	_, err := tx.Exec(ctx, `UPDATE import_rows r SET outcome = v.outcome, outcome_note = NULLIF(v.note, ''), application_id = v.app,
			errors = COALESCE(v.errors::jsonb, r.errors)
		FROM unnest($2::int[], $3::text[], $4::text[], $5::uuid[], $6::text[]) AS v(n, outcome, note, app, errors)
		WHERE r.batch_id = $1 AND r.row_number = v.n`, batch, nums, kinds, notes, apps, errs)
	if err != nil {
		return fmt.Errorf("record import rows: %w", err)
	}
	return nil
}

// purgeExpired deletes batches past their lifetime (and their sealed rows), except one
// still importing, which is deleted once done and expired.
func purgeExpired(ctx context.Context, q database.Querier, now time.Time) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM import_batches WHERE expires_at <= $1 AND status <> 'importing'`, now)
	if err != nil {
		return 0, fmt.Errorf("delete expired imports: %w", err)
	}
	return tag.RowsAffected(), nil
}
