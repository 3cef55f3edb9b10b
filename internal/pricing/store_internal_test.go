package pricing

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// The check in Validate cannot see a model another admin is creating at the
// same moment; the unique index can, and its refusal must read like the check's.
func TestUniqueIndexRefusalBecomesTheCodeMessage(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	s := NewService(db.Gorm, time.Now, slog.New(slog.DiscardHandler))
	row := func(name string) *models.PricingModel {
		return &models.PricingModel{ID: uuid.New(), Name: name, UpstreamCode: "FLAT-1", FeeSummary: "x",
			RequiredDocumentTypes: pq.StringArray{}, Active: true, Version: 1}
	}
	if err := s.store.Create(ctx, row("First")); err != nil {
		t.Fatal(err)
	}
	err := s.store.Create(ctx, row("Second"))
	if !errors.Is(err, errCodeTaken) {
		t.Fatalf("second insert: %v, want errCodeTaken", err)
	}
	fields, _ := apperr.FieldsOf(s.codeTaken(ctx, "FLAT-1"))
	msg := fields[FieldUpstreamCode]
	if !strings.HasPrefix(msg, "The current pricing model “First” already uses this code.") {
		t.Fatalf("message: %s", msg)
	}
	// The database also refuses a code of the wrong shape, whoever writes it.
	bad := row("Bad")
	bad.UpstreamCode = "has space"
	if err := s.store.Create(ctx, bad); err == nil || errors.Is(err, errCodeTaken) {
		t.Fatalf("badly shaped code: %v, want a check violation", err)
	}
}
