package payments

import (
	"context"
	"encoding/csv"
	"io"
	"strings"
	"time"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/database"
)

// errBadCursor answers a list cursor that was not made by List.
var errBadCursor = apperr.New(apperr.KindInvalid, "That page of the list no longer exists. Start from the first page.")

// exportHeader is the first line of the ledger's CSV export.
var exportHeader = []string{"created_at", "id", "source", "type", "status", "amount", "tip", "tax", "approved",
	"refunded", "card", "reference", "user", "batch", "approval_code", "processor_id", "original_id",
	"location", "device"}

// Export writes the transactions f selects as CSV, newest first: amounts in
// dollars, the card masked (first six and last four at most), no billing data.
func (l *Ledger) Export(ctx context.Context, q database.Querier, f Filter, w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(exportHeader); err != nil {
		return err
	}
	err := l.Each(ctx, q, f, func(t *Transaction) error {
		parent := ""
		if t.ParentID != nil {
			parent = t.ParentID.String()
		}
		return cw.Write(csvSafe([]string{
			t.CreatedAt.UTC().Format(time.RFC3339), t.ID.String(), string(t.Source), string(t.Kind), string(t.Status),
			decimal(t.AmountCents), decimal(t.TipCents), decimal(t.TaxCents), decimal(t.ApprovedCents),
			decimal(t.RefundedCents), strings.TrimSpace(t.Card.Brand + " " + t.Card.Masked()), t.Reference,
			t.CreatedByName, t.BatchNumber, t.ApprovalCode, t.UniqueTransID, parent, t.LocationID, t.DeviceName,
		}))
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// decimal writes cents as a plain decimal: 123450 → "1234.50".
func decimal(c int64) string {
	return strings.NewReplacer("$", "", ",", "").Replace(FormatCents(c))
}

// csvSafe keeps a spreadsheet from reading a cell as a formula.
func csvSafe(cells []string) []string {
	for i, c := range cells {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			cells[i] = "'" + c
		}
	}
	return cells
}
