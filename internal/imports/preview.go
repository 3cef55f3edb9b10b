package imports

import (
	"context"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/models"
)

// previewPage is how many rows of problems or duplicates a page of the preview lists.
const previewPage = 50

// sampleRows is how many valid rows the preview shows as they will be imported.
const sampleRows = 5

// Preview is what the preview page shows of a batch.
type Preview struct {
	Batch  *Batch
	Counts Counts
	// OwnerName is whose drafts the rows become.
	OwnerName string
	// Mapped lists each column and the field it fills ("" for none).
	Mapped []MappedColumn
	// Problems are the invalid or refused rows of this page, in row order; Duplicates
	// the rows matching a merchant already in the portal.
	Problems   []ProblemRow
	Duplicates []DuplicateRow
	// Sample shows the first valid rows as they will be imported, masked.
	Sample     []SampleRow
	SampleHead []string
	// Page counts from 1; Pages is how many pages of problems and duplicates there are.
	Page, Pages int
}

// MappedColumn is one column of the file.
type MappedColumn struct {
	Index  int
	Header string
	Field  string
	Title  string
}

// ProblemRow is a row that is not imported, with why.
type ProblemRow struct {
	Number int
	Errors []RowError
	Note   string
}

// DuplicateRow is a row matching a merchant already in the portal.
type DuplicateRow struct {
	Number  int
	AppID   uuid.UUID
	Name    string
	Owner   string
	Outcome string
}

// PrevPage is the number of the page before this one, or 0.
func (p *Preview) PrevPage() int { return p.Page - 1 }

// NextPage is the number of the page after this one, or 0.
func (p *Preview) NextPage() int {
	if p.Page < p.Pages {
		return p.Page + 1
	}
	return 0
}

// SampleRow is a valid row as it will be imported.
type SampleRow struct {
	Number int
	Values []string
}

// Preview returns the preview of a batch u uploaded; page counts from 1.
func (s *Service) Preview(ctx context.Context, u *models.User, id uuid.UUID, page int) (*Preview, error) {
	b, err := s.Batch(ctx, u, id)
	if err != nil {
		return nil, err
	}
	q := s.d.Apps.Querier()
	p := &Preview{Batch: b, Page: max(page, 1)}
	if p.Counts, err = countRows(ctx, q, b.ID); err != nil {
		return nil, err
	}
	if owner, err := s.d.Apps.User(ctx, nil, b.OwnerID); err == nil {
		p.OwnerName = owner.DisplayName()
	}
	for i, h := range b.Headers {
		mc := MappedColumn{Index: i, Header: h}
		if i < len(b.Mapping) && b.Mapping[i] != "" {
			c, _ := column(b.Mapping[i])
			mc.Field, mc.Title = c.Field, c.Title()
		}
		p.Mapped = append(p.Mapped, mc)
	}
	if b.Status == StatusMapping {
		return p, nil
	}
	most := max(p.Counts.Rejected(), p.Counts.Duplicate)
	p.Pages = max(1, (most+previewPage-1)/previewPage)
	offset := (p.Page - 1) * previewPage
	if p.Problems, err = s.problems(ctx, b.ID, offset); err != nil {
		return nil, err
	}
	if p.Duplicates, err = s.duplicates(ctx, b.ID, offset); err != nil {
		return nil, err
	}
	if p.Page == 1 {
		err = s.sample(ctx, p)
	}
	return p, err
}

func (s *Service) problems(ctx context.Context, batch uuid.UUID, offset int) ([]ProblemRow, error) {
	rows, err := s.d.Apps.Querier().Query(ctx, `SELECT `+rowColumns+` FROM import_rows
		WHERE batch_id = $1 AND (check_status = 'invalid' OR outcome = 'refused')
		ORDER BY row_number LIMIT $2 OFFSET $3`, batch, previewPage, offset)
	if err != nil {
		return nil, fmt.Errorf("list import problems: %w", err)
	}
	list, err := scanRows(rows)
	if err != nil {
		return nil, err
	}
	out := make([]ProblemRow, len(list))
	for i, r := range list {
		out[i] = ProblemRow{Number: r.Number, Errors: r.Errors}
		if r.Note != nil {
			out[i].Note = *r.Note
		}
	}
	return out, nil
}

func (s *Service) duplicates(ctx context.Context, batch uuid.UUID, offset int) ([]DuplicateRow, error) {
	rows, err := s.d.Apps.Querier().Query(ctx, `SELECT r.row_number, a.id, COALESCE(NULLIF(a.dba, ''), a.legal_name),
			COALESCE(NULLIF(u.name, ''), u.email), COALESCE(r.outcome, '')
		FROM import_rows r JOIN applications a ON a.id = r.duplicate_of JOIN users u ON u.id = a.owner_id
		WHERE r.batch_id = $1 AND r.check_status = 'duplicate'
		ORDER BY r.row_number LIMIT $2 OFFSET $3`, batch, previewPage, offset)
	if err != nil {
		return nil, fmt.Errorf("list import duplicates: %w", err)
	}
	defer rows.Close()
	var out []DuplicateRow
	for rows.Next() {
		var d DuplicateRow
		if err := rows.Scan(&d.Number, &d.AppID, &d.Name, &d.Owner, &d.Outcome); err != nil {
			return nil, fmt.Errorf("list import duplicates: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// sampleFields are the fields the preview shows of valid rows.
var sampleFields = []string{"business.legal_name", "business.dba", "business.tin", "contact.email"}

func (s *Service) sample(ctx context.Context, p *Preview) error {
	b := p.Batch
	rows, err := rowsAfter(ctx, s.d.Apps.Querier(), b.ID, 0, sampleRows, `check_status = 'valid'`, false)
	if err != nil {
		return err
	}
	var cols []int
	for _, f := range sampleFields {
		for i, m := range b.Mapping {
			if m == f {
				cols = append(cols, i)
				c, _ := column(f)
				p.SampleHead = append(p.SampleHead, c.Label)
			}
		}
	}
	for _, r := range rows {
		cells, err := openCells(s.d.Ring, b.ID, r.Number, r.Cells)
		if err != nil {
			return err
		}
		row := SampleRow{Number: r.Number}
		for _, i := range cols {
			row.Values = append(row.Values, shown(b.Mapping[i], cell(cells, i)))
		}
		p.Sample = append(p.Sample, row)
	}
	return nil
}

func cell(cells []string, i int) string {
	if i < len(cells) {
		return cells[i]
	}
	return ""
}

// shown is a cell as pages and files show it: personal data masked.
func shown(field, value string) string {
	if c, ok := column(field); ok && c.Sensitive {
		return fieldcrypt.Mask(value)
	}
	return value
}

// Progress is the state of an import, for its progress bar.
type Progress struct {
	Batch  *Batch
	Counts Counts
}

// Done is how many rows the import has handled; Total how many it handles.
func (p *Progress) Done() int { return p.Counts.Processed() }

// Total is how many rows the import acts on.
func (p *Progress) Total() int { return p.Counts.ToImport() }

// Running reports whether the import is still at work.
func (p *Progress) Running() bool { return p.Batch.Status == StatusImporting }

// Fingerprint changes whenever what the bar shows changes.
func (p *Progress) Fingerprint() string {
	return string(p.Batch.Status) + "-" + strconv.Itoa(p.Done())
}

// Progress returns the progress of an import u started.
func (s *Service) Progress(ctx context.Context, u *models.User, id uuid.UUID) (*Progress, error) {
	b, err := s.Batch(ctx, u, id)
	if err != nil {
		return nil, err
	}
	c, err := countRows(ctx, s.d.Apps.Querier(), b.ID)
	if err != nil {
		return nil, err
	}
	return &Progress{Batch: b, Counts: c}, nil
}
