package imports

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
)

// WriteRejected writes the rows of a batch that are not imported (refused by the checks
// or by the import) as CSV: the row's number, its mapped columns as in the file (SSNs,
// TINs and account numbers masked), and why. Columns left out of the mapping are left
// out: they were never read.
func (s *Service) WriteRejected(ctx context.Context, u *models.User, id uuid.UUID, w io.Writer) error {
	b, err := s.Batch(ctx, u, id)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	header := []string{"Row"}
	var cols []int
	for i, field := range b.Mapping {
		if field != "" {
			cols = append(cols, i)
			header = append(header, b.Headers[i])
		}
	}
	if err := cw.Write(append(header, "Why it was not imported")); err != nil {
		return err
	}
	for after := 0; ; {
		rows, err := rowsAfter(ctx, s.d.Apps.Querier(), b.ID, after, chunk, `(check_status = 'invalid' OR outcome = 'refused')`, false)
		if err != nil {
			return err
		}
		for _, r := range rows {
			cells, err := openCells(s.d.Ring, b.ID, r.Number, r.Cells)
			if err != nil {
				return err
			}
			rec := []string{strconv.Itoa(r.Number)}
			for _, i := range cols {
				rec = append(rec, safeCell(shown(b.Mapping[i], cell(cells, i))))
			}
			if err := cw.Write(append(rec, safeCell(why(r)))); err != nil {
				return err
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return fmt.Errorf("write rejected rows: %w", err)
		}
		if len(rows) < chunk {
			return nil
		}
		after = rows[len(rows)-1].Number
	}
}

// why says why a row was not imported, one problem after another.
func why(r storedRow) string {
	var parts []string
	if r.Note != nil {
		parts = append(parts, *r.Note)
	}
	for _, e := range r.Errors {
		if e.Column != "" {
			parts = append(parts, e.Column+": "+e.Message)
		} else {
			parts = append(parts, e.Message)
		}
	}
	return strings.Join(parts, " ")
}

// safeCell keeps a spreadsheet from reading a cell as a formula (CSV injection): a cell
// starting with =, +, -, @, tab or carriage return gets a leading apostrophe.
func safeCell(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

// RejectedFileName names the download of a batch's rejected rows.
func RejectedFileName(b *Batch) string {
	base := strings.TrimSuffix(b.FileName, ".csv")
	return "rejected-rows-" + base + ".csv"
}

// Template writes the template: the header row of every column a file may have.
func Template(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(TemplateHeader()); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
